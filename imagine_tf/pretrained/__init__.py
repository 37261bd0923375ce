"""The repository's pretrained models (``models/``): where they are, how they were made
(`imagine-tf pretrained build`), what their card says, and the trained agent at play."""
