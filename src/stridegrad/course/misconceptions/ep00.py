"""Known-wrong implementations for checkpoint 00 (welcome)."""

WRONG = {
    "flatten": [
        ("one level only", "def flatten(data):\n    return [x for row in data for x in row]\n"),
        ("reversed order", """
def flatten(data):
    if isinstance(data, list):
        out = []
        for item in reversed(data):
            out.extend(flatten(item))
        return out
    return [data]
"""),
        ("scalar not wrapped", """
def flatten(data):
    if not isinstance(data, list):
        return data
    out = []
    for item in data:
        out.extend(flatten(item) if isinstance(item, list) else [item])
    return out
"""),
        ("empties the input", """
def flatten(data):
    out = []
    while data:
        item = data.pop(0)
        out.extend(flatten(item) if isinstance(item, list) else [item])
    return out
"""),
    ],
}
