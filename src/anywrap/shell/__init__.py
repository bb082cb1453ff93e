"""What the single, vector and functional shells share: state, checks, spaces, maps.

Start with :mod:`~anywrap.shell.base` (``Shell``) and :mod:`~anywrap.shell.maps`.
"""
