"""Hint levels for checkpoint 05 (matmul and a loss)."""

HINTS = {
    "matmul_2d": [
        "Element (i, j) of the product is a dot product. Of which row and which column, "
        "and where in storage do they start?",
        "Row i of a starts at i * a_strides[0] and walks a_strides[1]; column j of b "
        "starts at j * b_strides[1] and walks b_strides[0]. Check the inner sizes first.",
        "In full:\n\n"
        "    (n, k), (k2, m) = a_shape, b_shape;  k != k2: ValueError naming both shapes\n"
        "    for i in range(n):\n"
        "        for j in range(m):\n"
        "            total = sum(a[i*a_strides[0] + p*a_strides[1]] * b[p*b_strides[0] + j*b_strides[1]]\n"
        "                        for p in range(k))\n"
        "            out.append(total)",
    ],
    "batched_matmul": [
        "A batch is one more loop, over t, around the dot products of matmul_2d (written "
        "again: matmul_2d reads from position 0, and slicing matrix t out would copy it). "
        "Where does matrix t of a start?",
        "Matrix t of a starts at t * a_strides[0] and is then a 2-D matrix with strides "
        "a_strides[1:]; the same for b. A batch stride of 0 reuses one matrix.",
        "In full:\n\n"
        "    check batch sizes and inner sizes (ValueError naming both shapes)\n"
        "    for t, i, j:\n"
        "        row = t*a_strides[0] + i*a_strides[1];  col = t*b_strides[0] + j*b_strides[2]\n"
        "        out.append(sum(a[row + p*a_strides[2]] * b[col + p*b_strides[1]] for p in range(k)))",
    ],
    "mse": [
        "Mean of what? Square each difference first.",
        "Add up (p - t) ** 2 over the pairs and divide by how many pairs there are; "
        "lists of different lengths, or empty ones, have no mean squared error.",
        "In full:\n\n"
        "    if len(pred) != len(target): ValueError naming both lengths\n"
        "    if not pred: ValueError (the mean of nothing)\n"
        "    return sum((p - t) ** 2 for p, t in zip(pred, target)) / len(pred)",
    ],
    "line_grads": [
        "Write L as a mean of squares of the residuals r = w * x + b - y, and "
        "differentiate one term with the chain rule.",
        "d(r**2)/dw = 2 * r * dr/dw = 2 * r * x, and d(r**2)/db = 2 * r. The mean's 1/N "
        "stays in front.",
        "In full:\n\n"
        "    (length checks as in mse)\n"
        "    r = [w * x + b - y for x, y in zip(xs, ys)]\n"
        "    dw = 2 * sum(ri * x for ri, x in zip(r, xs)) / N\n"
        "    db = 2 * sum(r) / N\n"
        "    return dw, db",
    ],
    "linear_model": [
        "The prediction of every row is one matrix-vector product plus b; the gradient "
        "with respect to w is another one, with X transposed. Which of your functions "
        "multiplies a strided matrix, and how do you transpose without copying?",
        "Prediction: matmul_2d(X as (N, D) with strides (D, 1), w as (len(w), 1)) plus b (w's "
        "own length, so that a w of the wrong size is matmul_2d's ValueError); the "
        "loss is your mse. The residuals r = prediction - y; the gradients are "
        "dL/dw = (2/N) X^T r and dL/db = (2/N) sum(r). X^T is the same storage read as "
        "(D, N) with the strides swapped: (1, D).",
        "In full:\n\n"
        "    N, D = x_shape\n"
        "    pred = [p + b for p in matmul_2d(x, (N, D), (D, 1), w, (len(w), 1), (1, 1))]\n"
        "    loss = mse(pred, y)          # a y of the wrong length: mse's ValueError\n"
        "    r = [p - t for p, t in zip(pred, y)]\n"
        "    dw = [2 * g / N for g in matmul_2d(x, (D, N), (1, D), r, (N, 1), (1, 1))]\n"
        "    db = 2 * sum(r) / N\n"
        "    return loss, dw, db",
    ],
}
