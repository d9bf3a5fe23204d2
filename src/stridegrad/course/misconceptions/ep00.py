"""Known mistakes in checkpoint 00's exercise (welcome): ``flatten``."""

from stridegrad.course.misconceptions import Misconception


MISCONCEPTIONS = {
    "flatten": [
        Misconception("one level only",
          "flattens one level only: rows of numbers come out right, but deeper lists stay "
          "nested and a lone number raises",
          "def flatten(data):\n    return [x for row in data for x in row]\n"),
        Misconception("reversed order",
          "walks the items from last to first: every number is there, in reverse order",
          """
def flatten(data):
    if isinstance(data, list):
        out = []
        for item in reversed(data):
            out.extend(flatten(item))
        return out
    return [data]
"""),
        Misconception("scalar not wrapped",
          "returns a lone number as it is instead of in a list: flatten(42) gives 42, not [42]",
          """
def flatten(data):
    if not isinstance(data, list):
        return data
    out = []
    for item in data:
        out.extend(flatten(item) if isinstance(item, list) else [item])
    return out
"""),
        Misconception("empties the input",
          "pops the items off the caller's list: the answer is right, but the input is left "
          "empty",
          """
def flatten(data):
    out = []
    while data:
        item = data.pop(0)
        out.extend(flatten(item) if isinstance(item, list) else [item])
    return out
"""),
        Misconception("extends the caller's first row",
          "starts the result from the caller's first row and extends it in place: the answer is "
          "right, but the input's first row grows",
          """
def flatten(data):
    if not isinstance(data, list):
        return [data]
    if not data or not isinstance(data[0], list):
        return [x for item in data for x in flatten(item)]
    out = data[0]
    for row in data[1:]:
        out.extend(row)
    return flatten(out)
"""),
        Misconception("returns a flat input itself",
          "returns an already flat list itself instead of a new one: changing the result "
          "changes the caller's list (an alias)",
          """
def flatten(data):
    if not isinstance(data, list):
        return [data]
    if not any(isinstance(x, list) for x in data):
        return data
    out = []
    for item in data:
        out.extend(flatten(item))
    return out
"""),
        Misconception("appends the rows",
          "appends each item instead of extending with its flattened numbers: rows come back "
          "as they are, nested",
          """
def flatten(data):
    if not isinstance(data, list):
        return [data]
    out = []
    for item in data:
        out.append(item)
    return out
"""),
        Misconception("drops the last item",
          "stops one item early (range(len(data) - 1)): the last number of every list is lost",
          """
def flatten(data):
    if not isinstance(data, list):
        return [data]
    out = []
    for i in range(len(data) - 1):
        out.extend(flatten(data[i]))
    return out
"""),
    ],
}
