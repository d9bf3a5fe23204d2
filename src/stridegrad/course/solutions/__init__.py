"""Each lesson's exercises as a module, ``stridegrad.course.solutions.epNN``.

The modules are written by ``stridegrad build`` from ``course/NN_slug.py`` (never by
hand): the oracle of the checkpoints' contracts, which judge a learner's function on
generated inputs against the lesson's own solution.
"""
