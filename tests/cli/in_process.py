"""`imagine-tf ARGS` run through `imagine_tf.cli.main.main` in the test's own process, where
TensorFlow is loaded already (a command process would import it again)."""

import contextlib
import io


def main_here(*args) -> tuple[int, str, str]:
    """``imagine-tf ARGS`` in this process: (exit code, stdout, stderr); the gin config the
    command parsed is cleared afterwards."""
    import gin

    from imagine_tf.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(arg) for arg in args])
    finally:
        gin.clear_config()
    return code, out.getvalue(), err.getvalue()
