"""Old home of the frame-stack and max-and-skip transforms, now
:mod:`anywrap.transforms.frame_stack_observation` and
:mod:`anywrap.transforms.max_and_skip_observation`: their names, re-exported until the
last importers move (then this module goes).

Example:
    >>> from anywrap.transforms import frame_stack_observation, frames
    >>> frames.push_frame is frame_stack_observation.push_frame
    True
"""

from anywrap.transforms.frame_stack_observation import (
    FrameStack,
    append_frame,
    init_frame_stack,
    push_frame,
    push_frame_with_final,
    read_stack,
    reset_frame_stack,
)
from anywrap.transforms.max_and_skip_observation import (
    MaxFrames,
    SkipOutput,
    init_max_frames,
    max_and_skip,
    max_of_two,
    reset_max_frames,
)

__all__ = [
    "FrameStack",
    "MaxFrames",
    "SkipOutput",
    "append_frame",
    "init_frame_stack",
    "init_max_frames",
    "max_and_skip",
    "max_of_two",
    "push_frame",
    "push_frame_with_final",
    "read_stack",
    "reset_frame_stack",
    "reset_max_frames",
]
