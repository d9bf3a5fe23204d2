"""Observations the grader's worker may run in a notebook's process, by name.

Each module here is public test code of one lesson (no expected values, no points):
the scenarios a checkpoint observes a learner's function with, and the objects they
build. The worker runs a function of these modules on request (the judge names it:
``"stridegrad.course.observe.ep06:_backward_scenario"``) with the notebook's function
as its first argument, and sends back what it returns, as plain data.
"""
