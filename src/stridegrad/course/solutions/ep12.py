"""The solutions of lesson 12's exercises (12_convolution_through_strides), in one module.

Written by ``stridegrad build 12`` from ``course/12_convolution_through_strides.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 12 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


import numpy as np
from stridegrad.nn.im2col import window_layout
from stridegrad.nn.im2col import im2col
from stridegrad.nn.im2col import conv2d
from stridegrad.nn.im2col import col2im
from stridegrad.nn.im2col import max_pool2d
from stridegrad.nn.im2col import conv2d_input_grad


def conv2d_weight_grad(x, grad_out, weight_shape, stride=1, padding=0):
    """The gradient of ``conv2d`` with respect to its weight.

    Shape contract: ``x`` ``(C, H, W)``, ``grad_out`` ``(OC, OH, OW)`` (the shape
    ``conv2d(x, weight, None, stride, padding)`` has), ``weight_shape = (OC, C,
    kh, kw)`` -> a new ``(OC, C, kh, kw)`` array: the gradient with respect to
    ``weight`` of ``np.sum(grad_out * conv2d(x, weight, None, stride, padding))``.
    ``x`` and ``grad_out`` (any layout: views too) share one float dtype, which
    the result keeps; ``stride`` and ``padding`` are ints, the same for both axes.

    Raises:
        ValueError: naming both shapes, if ``grad_out`` does not have the shape of
            that convolution's output.
    """
    oc, c, kh, kw = weight_shape
    xp = np.pad(x, ((0, 0), (padding, padding), (padding, padding)))
    oh, ow = (xp.shape[1] - kh) // stride + 1, (xp.shape[2] - kw) // stride + 1
    if grad_out.shape != (oc, oh, ow):
        raise ValueError(f"conv2d_weight_grad: grad_out has shape {grad_out.shape}, but x of "
                         f"shape {x.shape} and weight {tuple(weight_shape)} give {(oc, oh, ow)}")
    cols = im2col(xp, (kh, kw), (stride, stride))
    return (grad_out.reshape(oc, oh * ow) @ cols.T).reshape(oc, c, kh, kw)


__all__ = ['window_layout', 'im2col', 'conv2d', 'col2im', 'max_pool2d', 'conv2d_input_grad', 'conv2d_weight_grad']
