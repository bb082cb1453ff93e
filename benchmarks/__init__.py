"""anywrap's benchmarks, kept beside the package in a checkout and never installed with it.

``python -m benchmarks`` (from the repository root; ``make bench``) runs the suite
B1 to B9 of :mod:`benchmarks.suite`; the scripts beside this file measure one
question each. This file makes ``benchmarks`` a regular package, which takes
precedence over the ``benchmarks`` folder that TorchRL's wheel installs.
"""
