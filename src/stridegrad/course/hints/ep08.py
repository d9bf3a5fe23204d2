"""Hint levels for checkpoint 08 (tensor autograd)."""

HINTS = {
    "unbroadcast": [
        "Broadcasting used one input element many times; its gradient is the sum over "
        "all those uses. Which axes did broadcasting add or stretch?",
        "Axes added on the left (grad has more dimensions than shape): sum them away. "
        "Axes that are size 1 in shape but not in grad: sum them with keepdims=True so "
        "they stay size 1.",
        "In full:\n\n"
        "    lead = grad.ndim - len(shape)\n"
        "    if lead: grad = grad.sum(axis=tuple(range(lead)))\n"
        "    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)\n"
        "    if stretched: grad = grad.sum(axis=stretched, keepdims=True)\n"
        "    return grad.reshape(shape)",
    ],
    "sum_backward": [
        "Each input element was added once into one output element, with derivative 1. "
        "So each input element gets... ?",
        "Broadcast grad back to the input's shape. Without keepdims the reduced axes are "
        "missing from grad: reshape it with a 1 at each reduced axis, at its own place "
        "(negative axes count from the end; None means all axes).",
        "In full:\n\n"
        "    axes = all axes if axis is None else the normalised axis or axes\n"
        "    if not keepdims: grad = grad.reshape([1 if i in axes else n for i, n in enumerate(shape)])\n"
        "    return np.broadcast_to(grad, shape)   # a read-only view is fine",
    ],
    "max_backward": [
        "Only the elements that are the maximum of their slice moved the output. What "
        "happens on a tie?",
        "Compute the max with keepdims=True, a mask x == max, and the count of maxima per "
        "slice; each maximum gets grad / count (grad reshaped to broadcast against x).",
        "In full:\n\n"
        "    out = x.max(axis=axis, keepdims=True)\n"
        "    grad = grad reshaped to out.shape (np.expand_dims(grad, axis) without keepdims)\n"
        "    mask = (x == out).astype(float)\n"
        "    return mask * grad / mask.sum(axis=axis, keepdims=True)",
    ],
    "matmul_backward": [
        "Use the shapes: grad_a must be (n, k), and you have grad (n, m), a (n, k), "
        "b (k, m). Which product of two of them has shape (n, k)?",
        "out[i, j] = sum_p a[i, p] b[p, j], so d out[i, j] / d a[i, p] = b[p, j]: "
        "grad_a = grad @ b.T, and by the same argument grad_b = a.T @ grad.",
        "In full:\n\n"
        "    return grad @ b.T, a.T @ grad",
    ],
    "numerical_gradient": [
        "One entry at a time: nudge x[idx] up and down by eps, look at f each time.",
        "For every index (np.ndindex(*x.shape)): keep the old value, set old + eps and "
        "call f, set old - eps and call f, put the old value back, and store the "
        "difference divided by 2 * eps.",
        "In full:\n\n"
        "    grad = np.zeros(x.shape)\n"
        "    for idx in np.ndindex(*x.shape):\n"
        "        old = x[idx]\n"
        "        x[idx] = old + eps; up = f(x)\n"
        "        x[idx] = old - eps; down = f(x)\n"
        "        x[idx] = old\n"
        "        grad[idx] = (up - down) / (2 * eps)\n"
        "    return grad",
    ],
    "softmax_backward": [
        "y_i = exp(x_i) / sum_k exp(x_k): x_j appears in every y_i of its row. Write "
        "d y_i / d x_j for i == j and for i != j.",
        "d y_i / d x_j = y_i * (delta_ij - y_j). So dL/dx_j = sum_i grad_i * y_i * "
        "(delta_ij - y_j) = y_j * grad_j - y_j * sum_i grad_i * y_i: one sum per slice "
        "along axis, kept as size 1 so it broadcasts back.",
        "In full:\n\n"
        "    s = (grad * y).sum(axis=axis, keepdims=True)\n"
        "    return y * (grad - s)          (a new array; grad unchanged)",
    ],
}
