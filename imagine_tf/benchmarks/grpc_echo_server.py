"""A PredictionService that answers every Predict with an empty response: the gRPC floor.

`imagine-tf bench serving` times the same requests against it, so the report separates what
the transport costs (Python grpcio, loopback, this machine) from what the server adds.

    python -m imagine_tf.benchmarks.grpc_echo_server   # prints "serving 'echo' on 127.0.0.1:PORT"
"""

from __future__ import annotations

from concurrent import futures

import grpc
from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc

MESSAGE_BYTES = 64 << 20  # as the real server's default --max_message_mb


class EchoServicer(prediction_service_pb2_grpc.PredictionServiceServicer):
    def Predict(self, request, context):  # noqa: N802 - the gRPC method name
        return predict_pb2.PredictResponse()


def main() -> None:
    options = [
        ("grpc.max_receive_message_length", MESSAGE_BYTES),
        ("grpc.max_send_message_length", MESSAGE_BYTES),
    ]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), options=options)
    prediction_service_pb2_grpc.add_PredictionServiceServicer_to_server(EchoServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(f"serving 'echo' on 127.0.0.1:{port}", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
