"""Hint levels for checkpoint 10 (backends)."""

HINTS = {
    "namespace_of": [
        "Every Array API array answers x.__array_namespace__(). What must hold for all "
        "the arguments together?",
        "Skip Python numbers. For the others: no __array_namespace__ is a TypeError; the "
        "first array fixes the namespace and the device; a later one with another "
        "namespace or device is a RuntimeError naming both; no array at all is a "
        "ValueError.",
        "In full:\n\n"
        "    xp = device = None\n"
        "    for x in arrays:\n"
        "        if x is a bool/int/float/complex: continue\n"
        "        if not hasattr(x, '__array_namespace__'): raise TypeError\n"
        "        x_xp = x.__array_namespace__()\n"
        "        if xp is None: xp, device = x_xp, x.device\n"
        "        elif x_xp is not xp: raise RuntimeError naming both namespaces\n"
        "        elif x.device != device: raise RuntimeError naming both devices\n"
        "    if xp is None: raise ValueError\n"
        "    return xp",
    ],
    "softmax": [
        "softmax = exp(x) / sum(exp(x)). Which call on xp gives each, and what keeps exp "
        "from overflowing?",
        "Subtract xp.max(x, axis=axis, keepdims=True) first; keepdims keeps the reduced "
        "axis so the division broadcasts back along it.",
        "In full:\n\n"
        "    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))\n"
        "    return e / xp.sum(e, axis=axis, keepdims=True)",
    ],
    "pick_device": [
        "Try the names in order; available(name) says yes or no and why. What if prefer "
        "is a single string?",
        "A str is one name (not a sequence of letters). Return the first name that is "
        "available; remember each refusal's reason, and raise RuntimeError naming every "
        "device and its reason if none is. An empty prefer is a ValueError.",
        "In full:\n\n"
        "    names = (prefer,) if isinstance(prefer, str) else tuple(prefer)\n"
        "    if not names: raise ValueError\n"
        "    reasons = []\n"
        "    for name in names:\n"
        "        ok, why = available(name)\n"
        "        if ok: return name\n"
        "        reasons.append(f'{name!r} ({why})')\n"
        "    raise RuntimeError('no device works here: ' + '; '.join(reasons))",
    ],
    "to_host": [
        "Three kinds of input: already a NumPy array, a device array that can copy itself "
        "to the host, anything else.",
        "A NumPy array comes back as it is; an object with a callable .get() (CuPy) is "
        "copied with it; everything else goes through np.asarray.",
        "In full:\n\n"
        "    if isinstance(x, np.ndarray): return x\n"
        "    get = getattr(x, 'get', None)\n"
        "    if callable(get): return get()\n"
        "    return np.asarray(x)",
    ],
    "time_op": [
        "A device runs asynchronously: the call returns before the work is done. When "
        "must you wait for it, and why run fn once before timing?",
        "Run fn once untimed (warm-up) and sync. Then for each of the repeat runs: read "
        "the clock, run fn, sync, read the clock again; keep the smallest difference. "
        "repeat < 1 is a ValueError.",
        "In full:\n\n"
        "    if repeat < 1: raise ValueError naming repeat\n"
        "    fn(); sync()\n"
        "    best = math.inf\n"
        "    for _ in range(repeat):\n"
        "        start = clock()\n"
        "        fn(); sync()\n"
        "        best = min(best, clock() - start)\n"
        "    return best",
    ],
    "logsumexp": [
        "log(sum(exp(x))) = m + log(sum(exp(x - m))) for any m. Which m keeps every exp "
        "at most 1, and one of them exactly 1?",
        "m = xp.max(x, axis=axis, keepdims=True), one per slice. Sum exp(x - m) along the "
        "axis with keepdims so it lines up with m, take the log, add m back, and drop the "
        "reduced axis (xp.squeeze).",
        "In full:\n\n"
        "    m = xp.max(x, axis=axis, keepdims=True)\n"
        "    total = xp.sum(xp.exp(x - m), axis=axis, keepdims=True)\n"
        "    return xp.squeeze(xp.log(total) + m, axis=axis)",
    ],
}
