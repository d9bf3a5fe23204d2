"""Hint levels for checkpoint 00 (welcome)."""

HINTS = {
    "flatten": [
        "An item of the list is either a number or another list, nested to any depth. "
        "Could flatten call itself on an item that is a list (or a tuple)?",
        "Recursion: flatten each item with flatten itself and join the pieces. A lone "
        "number is the base case: the list of that one number.",
        "In full:\n\n"
        "    if data is a list or a tuple:\n"
        "        out = []\n"
        "        for item in data: out.extend(flatten(item))\n"
        "        return out\n"
        "    return [data]\n\n"
        "Build a new list: never pop from or extend the lists you were given.",
    ],
    "shape_of": [
        "Say what the shape of a list is in words: its own length, and then what? Which "
        "function already knows the shape of each item?",
        "Recursion again: a number's shape is (). A list's shape is (len(list),) followed by "
        "the shape its items share; work out every item's shape and compare them (ragged: "
        "ValueError naming the two). An empty list has nothing to share: (0,).",
        "In full:\n\n"
        "    if data is not a list or tuple: return ()\n"
        "    shapes = [shape_of(item) for item in data]\n"
        "    if two of them differ: raise ValueError naming both\n"
        "    return (len(data),) + (shapes[0] if shapes else ())",
    ],
    "dtype_of": [
        "Order the three types so that each holds the ones before it: which holds which? "
        "Then: what does isinstance(True, int) say?",
        "Rank the types bool < int < float; the dtype is the highest rank among the "
        "elements. Look at type(v), not isinstance (True is an int too), and reject any "
        "other type with TypeError naming the element. No elements at all: NumPy's "
        "default, float64.",
        "In full:\n\n"
        "    rank = {bool: 0, int: 1, float: 2}\n"
        "    for v in flat:\n"
        "        if type(v) not in rank: raise TypeError naming v and type(v).__name__\n"
        "    highest = max of rank[type(v)] over flat, default 2\n"
        "    return (\"bool\", \"int64\", \"float64\")[highest]",
    ],
    "to_bytes": [
        "Which struct format character is each dtype's slot, at its standard size? And what "
        "decides the slot of a number: its own type, or the dtype?",
        "One format for the whole block, picked from dtype: 'd' for float64 (struct turns an "
        "int into a float for it), 'q' for int64, '?' for bool, after '<' (standard sizes, "
        "least significant byte first). struct.pack takes a count: '<3d' packs three numbers "
        "into one bytes object. Any other dtype: ValueError naming it and the three.",
        "In full:\n\n"
        "    formats = {\"bool\": \"?\", \"int64\": \"q\", \"float64\": \"d\"}\n"
        "    if dtype not in formats: raise ValueError naming dtype and the three\n"
        "    return struct.pack(\"<\" + str(len(flat)) + formats[dtype], *flat)",
    ],
    "unflatten": [
        "The first size of the shape says how many items the outer list has; what is each "
        "item, and which part of the flat list does it take?",
        "Each of the shape[0] items is itself an unflatten of an equal slice of the flat "
        "list, with the rest of the shape: shape[1:]. The empty shape () is one number.",
        "In full:\n\n"
        "    check len(flat) == product of shape, else ValueError naming both\n"
        "    if shape == (): return flat[0]\n"
        "    step = the product of shape[1:]    (len(flat) // shape[0] fails for shape[0] == 0)\n"
        "    return [unflatten(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]\n\n"
        "Slicing makes new lists, so the result shares nothing with the input.",
    ],
}
