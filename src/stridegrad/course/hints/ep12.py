"""Hint levels for checkpoint 12 (convolution through strides)."""

HINTS = {
    "window_layout": [
        "A window view has two more axes than the image: which window (r, c) and where "
        "inside it (i, j). How far apart in storage are neighbours along each?",
        "Moving to the next window row moves sh image rows: stride sH * sh; inside a "
        "window, the next row is the next image row: stride sH. The same for columns. "
        "OH = (H - kh) // sh + 1. Check the kernel fits and everything is at least 1.",
        "In full:\n\n"
        "    if min(kh, kw, sh, sw) < 1: raise ValueError\n"
        "    *lead, h, w = shape;  *lead_strides, s_h, s_w = strides\n"
        "    if kh > h or kw > w: raise ValueError naming kernel and shape\n"
        "    return ((*lead, (h - kh) // sh + 1, (w - kw) // sw + 1, kh, kw),\n"
        "            (*lead_strides, s_h * sh, s_w * sw, s_h, s_w))",
    ],
    "im2col": [
        "window_layout gives a (C, OH, OW, kh, kw) view with no copy. Which axes must go "
        "to the rows and which to the columns?",
        "Element strides are x.strides // x.itemsize; build the view with as_strided "
        "(byte strides, writeable=False), move the axes to (C, kh, kw, OH, OW), then copy "
        "into a (C * kh * kw, OH * OW) array.",
        "In full:\n\n"
        "    check x.ndim == 3 (ValueError naming the shape)\n"
        "    shape, strides = window_layout(x.shape, element strides, kernel, stride)\n"
        "    view = as_strided(x, shape, byte strides, writeable=False)\n"
        "    return np.array(view.transpose(0, 3, 4, 1, 2)).reshape(c*kh*kw, oh*ow)",
    ],
    "conv2d": [
        "im2col turns every window into a column. What does one row of the weight, "
        "flattened, do to one column?",
        "Pad x with zeros, im2col it with the kernel size and stride, multiply the "
        "weight reshaped to (OC, C * kh * kw) by the columns, reshape to (OC, OH, OW) and "
        "add the bias per channel. Check the channel counts first.",
        "In full:\n\n"
        "    if weight.shape[1] != C: raise ValueError naming both counts and weight.shape\n"
        "    xp = np.pad(x, ((0, 0), (padding, padding), (padding, padding)))\n"
        "    cols = im2col(xp, (kh, kw), (stride, stride))\n"
        "    out = (weight.reshape(OC, -1) @ cols).reshape(OC, OH, OW)\n"
        "    return out if bias is None else out + bias[:, None, None]",
    ],
    "col2im": [
        "im2col copied each image element into every window that covers it; the "
        "transpose adds those copies back. Where does row (c, i, j) of cols go?",
        "Reshape cols to (C, kh, kw, OH, OW). For each kernel position (i, j), the block "
        "[:, i, j] lands on the image rows i, i + sh, ... and columns j, j + sw, ...: add "
        "it into that strided slice of a zero image.",
        "In full:\n\n"
        "    check cols.shape == (C*kh*kw, OH*OW), else ValueError naming both shapes\n"
        "    out = np.zeros(shape, dtype=cols.dtype)\n"
        "    blocks = cols.reshape(C, kh, kw, OH, OW)\n"
        "    for i in range(kh):\n"
        "        for j in range(kw):\n"
        "            out[:, i:i + sh*(OH-1) + 1:sh, j:j + sw*(OW-1) + 1:sw] += blocks[:, i, j]\n"
        "    return out",
    ],
    "max_pool2d": [
        "A window view again, this time with the maximum instead of a dot product.",
        "stride defaults to the kernel. Build the (C, OH, OW, kh, kw) window view with "
        "window_layout and as_strided, and take the max over its last two axes.",
        "In full:\n\n"
        "    stride = kernel if stride is None else stride\n"
        "    shape, strides = window_layout(x.shape, element strides, kernel, stride)\n"
        "    view = as_strided(x, shape, byte strides, writeable=False)\n"
        "    return view.max(axis=(-2, -1))",
    ],
    "conv2d_input_grad": [
        "conv2d was weight @ im2col(padded x). Go back through each step in reverse.",
        "The gradient of the columns is weight (as (OC, C*kh*kw)) transposed times "
        "grad_out (as (OC, OH*OW)); col2im adds the columns back into the padded image; "
        "cut the padding off.",
        "In full:\n\n"
        "    grad_cols = weight.reshape(OC, -1).T @ grad_out.reshape(OC, -1)\n"
        "    grad = col2im(grad_cols, (C, H + 2*padding, W + 2*padding), (kh, kw), (stride, stride))\n"
        "    return grad[:, padding:padding + H, padding:padding + W]",
    ],
    "conv2d_weight_grad": [
        "conv2d computed out = W2 @ cols with W2 the weight as (OC, C*kh*kw) and cols = "
        "im2col(padded x). For a matrix product, which factor does dL/dW2 need?",
        "For out = W2 @ cols, dL/dW2 = grad_out2 @ cols.T, with grad_out2 the gradient as "
        "(OC, OH*OW). Pad x first, check grad_out's shape, reshape the answer to "
        "weight_shape.",
        "In full:\n\n"
        "    xp = np.pad(x, ((0, 0), (padding, padding), (padding, padding)))\n"
        "    OH, OW from xp, kernel and stride;  grad_out.shape != (OC, OH, OW): ValueError\n"
        "    cols = im2col(xp, (kh, kw), (stride, stride))\n"
        "    return (grad_out.reshape(OC, -1) @ cols.T).reshape(OC, C, kh, kw)",
    ],
}
