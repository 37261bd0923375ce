"""Facts several packages share, defined once and without TensorFlow (the environment, the
configs and the command line read them before any network is built).

Observation layout (Playground, Colas et al. 2020): the body's 3 features (x, y, gripper) and
39 per object (32 type one-hot, x, y, size, RGB, grown), twice: s_t = [o_t, o_t − o_0].
"""

BODY_DIM = 3
OBJECT_DIM = 39
PAIR_GATES = ("per_slot", "shared", "residual")  # the ma_pairs reward's gates
# how MA and MA-pairs combine module probabilities (`OrNetwork`)
REWARD_AGGREGATIONS = ("or", "or_unsorted", "max")

#: Deep Sets architectures of the policy and critic (modular attention, flat attention, flat).
POLICY_ARCHITECTURES = ("ma", "fa", "fc")
#: The reward model's: the policy's and MA over object pairs.
REWARD_ARCHITECTURES = (*POLICY_ARCHITECTURES, "ma_pairs")
#: Compute precisions of the networks ("auto" in a run's config resolves to one of them).
COMPUTE_DTYPES = ("float32", "bfloat16")
AUTO = "auto"
