"""Hint levels for checkpoint 09 (the training loop)."""

HINTS = {
    "Linear": [
        "Two Parameters with the shapes the docstring gives, filled from sg.rand moved "
        "onto [-k, k]; forward is one matmul and one addition. Which way round is weight?",
        "k = 1 / sqrt(in_features); sg.rand gives numbers in [0, 1): (rand * 2 - 1) * k "
        "is uniform in [-k, k). forward multiplies by the transpose of weight: x @ weight.T. "
        "sg.rand takes device= and dtype= too; with bias=False, self.bias is None and "
        "forward adds nothing.",
        "In full:\n\n"
        "    k = 1.0 / math.sqrt(in_features)\n"
        "    w = sg.rand(out_features, in_features, device=device, dtype=dtype)\n"
        "    self.weight = Parameter((w * 2 - 1) * k)\n"
        "    b = sg.rand(out_features, device=device, dtype=dtype)\n"
        "    self.bias = Parameter((b * 2 - 1) * k) if bias else None\n"
        "    forward: y = x @ self.weight.T; add self.bias when it is not None",
    ],
    "log_softmax": [
        "log(softmax(x)) = x - log(sum(exp(x))) along the last axis. What can overflow, "
        "and what shift leaves the answer unchanged?",
        "Subtract each row's maximum (keepdims=True) first; then take x - log of the sum "
        "of exp along axis -1, again with keepdims. Only Tensor operations, so the "
        "gradient flows.",
        "In full:\n\n"
        "    shifted = x - x.max(axis=-1, keepdims=True)\n"
        "    return shifted - shifted.exp().sum(axis=-1, keepdims=True).log()",
    ],
    "nll_loss": [
        "For each row you need one entry: the log-probability of its target. How can a "
        "multiplication pick it out, so that gradients flow?",
        "A one-hot mask (np.eye(C)[targets]) as a Tensor: logp * mask keeps only the "
        "targets' entries; sum them, negate, divide by N.",
        "In full:\n\n"
        "    n, c = logp.shape\n"
        "    onehot = sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)\n"
        "    return -(logp * onehot).sum() / n",
    ],
    "sgd_step": [
        "Three pieces in order: weight decay changes the gradient, momentum smooths it, "
        "then the step. Which of them needs memory between calls?",
        "g = grad + weight_decay * param. With momentum, the buffer in "
        "state['momentum_buffer'] is g on the first step and momentum * buffer + g after "
        "(a new array each time, never the caller's grad updated in place); step with the "
        "buffer. Return a new array: param - lr * g.",
        "In full:\n\n"
        "    g = grad + weight_decay * param\n"
        "    if momentum:\n"
        "        buf = state.get('momentum_buffer')\n"
        "        buf = g if buf is None else momentum * buf + g\n"
        "        state['momentum_buffer'] = buf\n"
        "        g = buf\n"
        "    return param - lr * g",
    ],
    "adam_step": [
        "Adam keeps two running averages, of the gradient and of its square, and a step "
        "count, all in state. The docstring gives the update line by line: which of its "
        "names must survive until the next call?",
        "Read m, v and t from state (0 when missing) and add 1 to t first, so that the "
        "first call uses t = 1 (then m_hat = g and v_hat = g**2: a step of lr * sign(g)). "
        "Store the new m, v and t back in state. eps is added to sqrt(v_hat), not under "
        "the root.",
        "In full:\n\n"
        "    t = state['step'] = state.get('step', 0) + 1\n"
        "    m = state['exp_avg'] = b1 * state.get('exp_avg', 0) + (1 - b1) * grad\n"
        "    v = state['exp_avg_sq'] = b2 * state.get('exp_avg_sq', 0) + (1 - b2) * grad**2\n"
        "    m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)\n"
        "    return param - lr * m_hat / (np.sqrt(v_hat) + eps)",
    ],
    "rmsprop_step": [
        "Adam without its first moment and without bias correction: one running average "
        "of the squared gradient in state, and the step divided by its square root.",
        "v = alpha * v + (1 - alpha) * grad**2, with v read from and written back to "
        "state['square_avg'] (0 at first). Step: lr * grad / (sqrt(v) + eps), eps after "
        "the root. Return param - step as a new array.",
        "In full:\n\n"
        "    v = state['square_avg'] = alpha * state.get('square_avg', 0.0) + (1 - alpha) * grad**2\n"
        "    return param - lr * grad / (np.sqrt(v) + eps)",
    ],
}
