"""The REST API's HTTP servers: aiohttp or tornado, each on its own event loop thread.

Both hand every request to `RestApi.handle` in a thread pool (the model call releases the
GIL), bound the body at ``max_body_bytes`` (beyond it, by each framework's own check, aiohttp
answers 413 and tornado 400, closing the connection) and answer JSON. `imagine-tf bench serving` compares them; ``--rest_framework`` picks one.
"""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent import futures

from .rest_api import RestApi

FRAMEWORKS = ("aiohttp", "tornado")


class RestServer:
    """Serves a `RestApi` over HTTP/1.1 on ``host:port`` (port 0: a free one, see ``port``).

    Args:
      api: the `RestApi`.
      host, port: where to listen.
      framework: "aiohttp" or "tornado".
      max_body_bytes: the largest request body.
      workers: threads running `RestApi.handle`.
    """

    def __init__(
        self,
        api: RestApi,
        host: str = "127.0.0.1",
        port: int = 8501,
        framework: str = "aiohttp",
        max_body_bytes: int = 64 << 20,
        workers: int = 8,
    ):
        if framework not in FRAMEWORKS:
            raise ValueError(f"rest framework must be one of {FRAMEWORKS}, got {framework!r}")
        self.api, self.host, self.port, self.framework = api, host, port, framework
        self.max_body_bytes = max_body_bytes
        self._executor = futures.ThreadPoolExecutor(workers, thread_name_prefix="rest")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="rest-server", daemon=True)
        self._close = None

    def start(self) -> "RestServer":
        self._thread.start()
        self._started.wait()
        if self._error is not None:
            raise OSError(f"cannot serve REST on {self.host}:{self.port}: {self._error}")
        return self

    def stop(self) -> None:
        """Stops listening; requests in flight finish first (their threads are joined)."""
        if self._loop is not None and self._close is not None:
            asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=30)
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._executor.shutdown(wait=True)

    async def _answer(self, method: str, path: str, body: bytes) -> tuple[int, bytes]:
        status, document = await asyncio.get_running_loop().run_in_executor(
            self._executor, self.api.handle, method, path, body
        )
        return status, json.dumps(document, separators=(",", ":")).encode()

    def _run(self) -> None:
        self._loop = loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            start = self._start_aiohttp if self.framework == "aiohttp" else self._start_tornado
            loop.run_until_complete(start())
        except BaseException as error:  # the port is taken, ...: start() reports it
            self._error = error
            self._started.set()
            loop.close()
            return
        self._started.set()
        loop.run_forever()
        loop.close()

    async def _start_aiohttp(self) -> None:
        from aiohttp import web

        async def handle(request: web.Request) -> web.Response:
            try:
                body = await request.read()
            except web.HTTPRequestEntityTooLarge:
                body_error = {"error": f"the body exceeds {self.max_body_bytes} bytes"}
                return web.json_response(body_error, status=413)
            status, payload = await self._answer(request.method, request.path, body)
            return web.Response(status=status, body=payload, content_type="application/json")

        app = web.Application(client_max_size=self.max_body_bytes)
        app.router.add_route("*", "/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # noqa: SLF001 - the bound port
        self._close = runner.cleanup

    async def _start_tornado(self) -> None:
        from tornado import httpserver, netutil, web

        answer = self._answer

        class Handler(web.RequestHandler):
            async def _reply(self):
                status, payload = await answer(
                    self.request.method, self.request.path, self.request.body
                )
                self.set_status(status)
                self.set_header("Content-Type", "application/json")
                self.finish(payload)

            get = post = put = delete = patch = _reply

        server = httpserver.HTTPServer(
            web.Application([(r"/.*", Handler)]), max_body_size=self.max_body_bytes
        )
        sockets = netutil.bind_sockets(self.port, self.host)
        server.add_sockets(sockets)
        self.port = sockets[0].getsockname()[1]

        async def close():
            server.stop()
            await server.close_all_connections()

        self._close = close
