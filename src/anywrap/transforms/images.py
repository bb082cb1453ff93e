"""Old home of the grayscale and resize transforms, now
:mod:`anywrap.transforms.grayscale_observation` and
:mod:`anywrap.transforms.resize_observation`: their names, re-exported until the last
importers move (then this module goes).

Example:
    >>> from anywrap.transforms import grayscale_observation, images
    >>> images.grayscale is grayscale_observation.grayscale
    True
"""

from anywrap.transforms.grayscale_observation import grayscale
from anywrap.transforms.resize_observation import resize

__all__ = ["grayscale", "resize"]
