"""What the single, vector and functional shells share; start with ``base.Shell`` and ``maps``."""
