"""A gRPC server speaking TensorFlow Serving's API for imagine-tf's exported SavedModels.

It knows SavedModels and their signatures only (no imagine_tf import): see README.md.
"""
