"""Clients of imagine-tf's served reward model and policy over TensorFlow Serving's REST and
gRPC APIs, without TensorFlow: numpy, requests, grpcio and protobuf only.

    from imagine_tf_client import RewardClient, GrpcRewardClient
    RewardClient("http://127.0.0.1:8501").score(states, goals)   # float32 [B]
"""

from imagine_tf_client.clients import (
    GrpcPolicyClient,
    GrpcRewardClient,
    ModelClient,
    PolicyClient,
    RewardClient,
)
from imagine_tf_client.errors import (
    ClientError,
    InvalidInput,
    ModelNotFound,
    ServerError,
    ServerUnavailable,
)

__version__ = "0.1.0"
__all__ = [
    "ClientError",
    "GrpcPolicyClient",
    "GrpcRewardClient",
    "InvalidInput",
    "ModelClient",
    "ModelNotFound",
    "PolicyClient",
    "RewardClient",
    "ServerError",
    "ServerUnavailable",
]
