"""Moved: lesson 11's graph IR and passes are the library's own now,
:mod:`stridegrad.compile.graph` (``sg.compile`` runs them).

This name stays so that a copy of lesson 11 made before the move (its setup cell does
``from stridegrad.course.compiler import Graph, Op, ...``) still runs; it holds no code
of its own, only the library's objects under their old address. New code imports
:mod:`stridegrad.compile.graph`.
"""

from stridegrad.compile.graph import *  # noqa: F403  (the same objects, not copies)
from stridegrad.compile.graph import __all__  # noqa: F401
