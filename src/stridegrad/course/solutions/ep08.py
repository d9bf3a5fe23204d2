"""The solutions of lesson 08's exercises (08_tensor_autograd), in one module.

Written by ``stridegrad build 08`` from ``course/08_tensor_autograd.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 08 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.tensor.rules import unbroadcast
from stridegrad.tensor.rules import sum_backward
from stridegrad.tensor.rules import max_backward
from stridegrad.tensor.rules import matmul_backward
from stridegrad.gradcheck import numerical_gradient


def softmax_backward(y, grad, axis=-1):
    """The gradient of a softmax with respect to its input, from its output.

    ``y = softmax(x, axis)`` (every slice along ``axis`` is positive and sums to
    1) and ``grad = dL/dy`` have the same shape and float dtype (any rank >= 1,
    ``axis`` an int, negative too); returns ``dL/dx``, a new array of that shape
    and dtype. Neither ``y`` nor ``grad`` is changed.

    Example:
        >>> softmax_backward(np.array([0.25, 0.75]), np.array([1.0, 0.0]))
        array([ 0.1875, -0.1875])
        >>> softmax_backward(np.array([0.25, 0.75]), np.array([1.0, 1.0]))   # a constant shift
        array([0., 0.])
    """
    return y * (grad - (grad * y).sum(axis=axis, keepdims=True))


__all__ = ['unbroadcast', 'sum_backward', 'max_backward', 'matmul_backward', 'numerical_gradient', 'softmax_backward']
