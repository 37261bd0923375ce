"""The generated TF Serving modules of imagine-tf-client: the same descriptors as the pinned
tensorflow-serving-api / tensorflow, importable next to them in either order, the same bytes on
the wire; and client/generate_protos.py's reading of the pinned wheels."""

import importlib
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from google.protobuf import descriptor_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROTOS = ROOT / "client" / "imagine_tf_client" / "_protos"
PREFIX = "imagine_tf_client._protos."
GENERATED = sorted(
    ".".join(path.relative_to(PROTOS).with_suffix("").parts) for path in PROTOS.rglob("*_pb2.py")
)


def tensorflow_module(name: str) -> str:
    """The pinned wheels' module of a generated one (TSL's live under tensorflow/)."""
    return f"tensorflow.{name}" if name.startswith("tsl.") else name


sys.path.insert(0, str(ROOT / "client"))
import generate_protos  # noqa: E402  (client/ is not a package)

SITE = pathlib.Path(np.__file__).parents[1]  # the site-packages of the pinned stack
#: Modules of tensorflow-serving-api 2.15.1 written by an old protoc: they fail to import with
#: protobuf 4.25's upb backend ("attribute 'has_options' ... is not writable"); ours import.
BROKEN_IN_THE_WHEEL = {
    "tensorflow_serving.apis.model_service_pb2",
    "tensorflow_serving.apis.prediction_service_pb2",
}


def test_every_file_of_the_closure_is_generated():
    protos = generate_protos.collect(SITE, generate_protos.ROOTS)
    names = {p.name for p in protos if not p.name.startswith("google/protobuf/")}
    assert {name.replace("/", ".").removesuffix(".proto") + "_pb2" for name in names} == set(
        GENERATED
    )
    assert "tensorflow_serving.apis.prediction_service_pb2" in GENERATED


@pytest.mark.parametrize("name", GENERATED)
def test_the_descriptors_are_the_pinned_wheels(name):
    """TensorFlow's module, then ours (unless an earlier test of this process imported the
    client; the other order in a fresh process: below)."""
    theirs = None
    if name not in BROKEN_IN_THE_WHEEL:
        theirs = importlib.import_module(tensorflow_module(name))
    ours = importlib.import_module(PREFIX + name)
    wheel_module = generate_protos._module_file(SITE, ours.DESCRIPTOR.name)
    assert ours.DESCRIPTOR.serialized_pb == generate_protos.serialized_descriptor(wheel_module)
    if theirs is not None:  # the same file, in TensorFlow's module and pool too
        assert theirs.DESCRIPTOR.serialized_pb == ours.DESCRIPTOR.serialized_pb
        assert ours.DESCRIPTOR.pool is not theirs.DESCRIPTOR.pool


def test_the_services_are_generated_and_named_as_tf_servings():
    from imagine_tf_client._protos.tensorflow_serving.apis import (
        model_service_pb2,
        prediction_service_pb2,
        prediction_service_pb2_grpc,
    )

    methods = prediction_service_pb2.DESCRIPTOR.services_by_name["PredictionService"].methods
    assert [m.name for m in methods] == [
        "Classify",
        "Regress",
        "Predict",
        "MultiInference",
        "GetModelMetadata",
    ]
    service = model_service_pb2.DESCRIPTOR.services_by_name["ModelService"]
    assert service.full_name == "tensorflow.serving.ModelService"
    assert hasattr(prediction_service_pb2_grpc, "PredictionServiceStub")


def test_the_messages_are_the_same_bytes_both_ways():
    from tensorflow_serving.apis import predict_pb2 as theirs

    from imagine_tf_client._protos.tensorflow_serving.apis import predict_pb2 as ours
    from imagine_tf_client.tensors import to_array, to_tensor_proto

    request = ours.PredictRequest()
    request.model_spec.name, request.model_spec.signature_name = "reward", "score"
    request.model_spec.version.value = 3
    request.inputs["goals"].CopyFrom(to_tensor_proto(np.array(["Go left"], dtype=object)))
    request.inputs["states"].CopyFrom(to_tensor_proto(np.ones((1, 4), np.float32)))
    parsed = theirs.PredictRequest.FromString(request.SerializeToString())
    assert parsed.model_spec.version.value == 3 and parsed.model_spec.signature_name == "score"
    assert parsed.SerializeToString(deterministic=True) == request.SerializeToString(
        deterministic=True
    )
    again = ours.PredictRequest.FromString(parsed.SerializeToString())
    np.testing.assert_array_equal(to_array(again.inputs["states"]), np.ones((1, 4), np.float32))


def test_the_client_imports_before_tensorflow_serving_in_one_process():
    script = (
        "import imagine_tf_client, imagine_tf_client.grpc_transport\n"
        "from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc\n"
        "from tensorflow.core.framework import tensor_pb2\n"
        "from imagine_tf_client._protos.tensorflow_serving.apis import predict_pb2 as ours\n"
        "assert ours.DESCRIPTOR.serialized_pb == predict_pb2.DESCRIPTOR.serialized_pb\n"
        "print('both')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONPATH": str(ROOT / "client"), "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert result.stdout.strip() == "both", result.stderr[-3000:]


def test_the_readme_and_the_headers_name_the_generator_version():
    version = generate_protos.GRPCIO_TOOLS
    assert f"grpcio-tools=={version}" in (ROOT / "client" / "README.md").read_text()
    for path in PROTOS.rglob("*_pb2*.py"):
        assert path.read_text().startswith(
            f"# Generated by client/generate_protos.py (grpcio-tools {version})"
        ), path
