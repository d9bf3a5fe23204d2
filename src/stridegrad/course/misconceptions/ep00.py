"""Known mistakes in checkpoint 00's exercises (welcome): ``flatten``, ``shape_of``,
``dtype_of``, ``to_bytes`` and the stretch ``unflatten``."""

from stridegrad.course.misconceptions import Misconception, fill


MISCONCEPTIONS = {
    "flatten": [
        Misconception("one level only",
          "flattens one level only: rows of numbers come out right, but deeper lists stay "
          "nested, and a number where a row should be (flatten([7, 8, 9]), flatten(42)) "
          "raises TypeError",
          "def flatten(data):\n    return [x for row in data for x in row]\n"),
        Misconception("reversed order",
          "walks the items from last to first: every number is there, in reverse order",
          """
def flatten(data):
    if isinstance(data, (list, tuple)):
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
    if not isinstance(data, (list, tuple)):
        return data
    out = []
    for item in data:
        out.extend(flatten(item) if isinstance(item, (list, tuple)) else [item])
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
        out.extend(flatten(item) if isinstance(item, (list, tuple)) else [item])
    return out
"""),
        Misconception("extends the caller's first row",
          "starts the result from the caller's first row and extends it in place: the answer is "
          "right, but the input's first row grows",
          """
def flatten(data):
    if not isinstance(data, (list, tuple)):
        return [data]
    if not data or not isinstance(data[0], list):
        return [x for item in data for x in flatten(item)]
    out = data[0]
    for row in data[1:]:
        out.extend(row if isinstance(row, list) else [row])
    return flatten(out)
"""),
        Misconception("returns a flat input itself",
          "returns an already flat list itself instead of a new one: changing the result "
          "changes the caller's list (an alias)",
          """
def flatten(data):
    if not isinstance(data, (list, tuple)):
        return [data]
    if not any(isinstance(x, (list, tuple)) for x in data):
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
    if not isinstance(data, (list, tuple)):
        return [data]
    out = []
    for item in data:
        out.append(item)
    return out
"""),
        Misconception("appends each flattened item",
          "appends what flatten(item) returns instead of extending with it: append adds the "
          "whole list as one item, so the nesting comes back ([[1, 2, 3], [4, 5, 6]]); "
          "out.extend(flatten(item)) (or out += flatten(item)) adds its numbers one by one",
          """
def flatten(data):
    if not isinstance(data, (list, tuple)):
        return [data]
    out = []
    for item in data:
        if isinstance(item, (list, tuple)):
            out.append(flatten(item))
        else:
            out.append(item)
    return out
"""),
        Misconception("three levels at most",
          "goes down a fixed number of levels with nested loops: three levels come out "
          "flat, but a fourth stays nested ([[[[1]], 2], 3] gives [[1], 2, 3]); call "
          "flatten on each item, so that any depth works",
          """
def flatten(data):
    if not isinstance(data, (list, tuple)):
        return [data]
    out = []
    for a in data:
        if not isinstance(a, (list, tuple)):
            out.append(a)
            continue
        for b in a:
            if not isinstance(b, (list, tuple)):
                out.append(b)
                continue
            out.extend(b)
    return out
"""),
        Misconception("no base case",
          "never stops at a number: flatten calls itself on every item, numbers too, and "
          "going through a number raises TypeError ('int' object is not iterable); a number "
          "is where the recursion stops: return [data]",
          """
def flatten(data):
    out = []
    for item in data:
        out.extend(flatten(item))
    return out
"""),
        Misconception("a generator, not a list",
          "yields the numbers instead of returning a list: the caller gets a generator, "
          "which is not a list, can be read only once and has no len(); collect them: "
          "return list(...), or build the list and return it",
          """
def flatten(data):
    if not isinstance(data, (list, tuple)):
        yield data
        return
    for item in data:
        yield from flatten(item)
"""),
        Misconception("sorts the numbers",
          "sorts the numbers instead of keeping them in reading order: [[3, 1], [2, 0]] "
          "must give [3, 1, 2, 0], row by row, as they stand in the rows",
          """
def flatten(data):
    def walk(d):
        if not isinstance(d, (list, tuple)):
            return [d]
        return [x for item in d for x in walk(item)]
    return sorted(walk(data))
"""),
        Misconception("only ints count as numbers",
          "tests isinstance(data, int) for the base case: ints are wrapped, but a float (or "
          "any other number) is iterated over and raises TypeError",
          """
def flatten(data):
    if isinstance(data, int):
        return [data]
    out = []
    for item in data:
        out.extend(flatten(item))
    return out
"""),
        Misconception("lists only",
          "takes only a list for a level: a tuple counts as one number, so flatten([(1, 2), "
          "(3, 4)]) keeps the tuples, [(1, 2), (3, 4)]; the docstring says lists or tuples "
          "(isinstance(data, (list, tuple)))",
          """
def flatten(data):
    if not isinstance(data, list):
        return [data]
    out = []
    for item in data:
        out.extend(flatten(item))
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
        Misconception("skips a row seen before",
          "remembers the lists it has been through (by id, as a guard against a list that "
          "holds itself) and skips one it meets again: a row object used twice, as "
          "[[0] * 3] * 2 makes, is one list under two indices, and its numbers must come "
          "out twice ([0, 0, 0, 0, 0, 0]); a nested list of numbers holds no cycle, so "
          "flatten every item as it comes",
          """
def flatten(data, seen=None):
    seen = set() if seen is None else seen
    if not isinstance(data, (list, tuple)):
        return [data]
    if id(data) in seen:
        return []
    seen.add(id(data))
    out = []
    for item in data:
        out.extend(flatten(item, seen))
    return out
"""),
    ],
}



# ------------------------------------------------------------------ shape_of

_SHAPE_OF = """
def shape_of(data):
    if not isinstance(data, (list, tuple)):
        return {NUMBER}
    shapes = [shape_of(item) for item in data]
    {CHECK}
    return {RESULT}
"""
_RAGGED_CHECK = ("for other in shapes[1:]:\n"
                 "        if other != shapes[0]:\n"
                 "            raise ValueError(f'items of shapes {shapes[0]} and {other}')")


def _shape_of(number="()", check=_RAGGED_CHECK,
              result="(len(data),) + (shapes[0] if shapes else ())"):
    return fill(_SHAPE_OF, NUMBER=number, CHECK=check, RESULT=result)


MISCONCEPTIONS["shape_of"] = [
    Misconception("looks at the first item only",
      "takes the shape of the first item at every level and never compares the others: a "
      "ragged list such as [[1, 2], [3]] gets a shape, (2, 2), instead of a ValueError",
      _shape_of(check="pass")),
    Misconception("returns a list",
      "builds the shape as a list: the sizes are right, but a shape is a tuple, as NumPy's "
      "a.shape is",
      _shape_of(result="[len(data)] + (list(shapes[0]) if shapes else [])")),
    Misconception("a number has shape (1,)",
      "gives a lone number the shape (1,): a number has no levels at all, so its shape is "
      "the empty tuple (), as NumPy's np.array(7).shape",
      _shape_of(number="(1,)")),
    Misconception("compares lengths only",
      "compares the items' lengths, then takes the rest of the shape from the first item "
      "alone: [[[1, 2]], [[3]]] has two items of length 1 and gets the shape (2, 1, 2), "
      "though their rows have 2 and 1 numbers; compare the items' whole shapes",
      """
def shape_of(data):
    if not isinstance(data, (list, tuple)):
        return ()
    if not data:
        return (0,)
    sizes = [len(x) if isinstance(x, (list, tuple)) else None for x in data]
    for size in sizes[1:]:
        if size != sizes[0]:
            raise ValueError(f"items of sizes {sizes[0]} and {size}")
    return (len(data),) + shape_of(data[0])
"""),
    Misconception("lists only",
      "takes only a list for a level: a tuple counts as a number, so ((1, 2), (3, 4), (5, 6)) "
      "gets the shape () instead of (3, 2); the docstring says lists or tuples "
      "(isinstance(data, (list, tuple)))",
      _shape_of().replace("isinstance(data, (list, tuple))", "isinstance(data, list)")),
    Misconception("compares the first and last items only",
      "compares the first item's shape with the last one's only: a ragged item in between "
      "([[7, 8], [9], [6, 5]]) goes unseen and the list gets a shape; compare every item "
      "with the first",
      _shape_of(check="if shapes and shapes[0] != shapes[-1]:\n"
                      "        raise ValueError(f'items of shapes {shapes[0]} and {shapes[-1]}')")),
    Misconception("prints the list, not the sizes",
      "puts the whole list in the error message instead of the sizes that clash: the "
      "reader must find the odd row themselves; name the two sizes (2 and 1 for "
      "[[7, 8], [9]])",
      _shape_of(check="for other in shapes[1:]:\n"
                      "        if other != shapes[0]:\n"
                      "            raise ValueError(f'ragged list: {data!r}')")),
    Misconception("compares the first two items only",
      "compares the first item's shape with the second one's only: a ragged item further "
      "on ([[7, 8], [6, 5], [9]]) goes unseen and the list gets a shape; compare every "
      "item with the first",
      _shape_of(check="if len(shapes) > 1 and shapes[0] != shapes[1]:\n"
                      "        raise ValueError(f'items of shapes {shapes[0]} and {shapes[1]}')")),
    Misconception("TypeError for ragged",
      "raises TypeError for a ragged list: the types are all right (lists of numbers), it "
      "is their sizes that clash, so NumPy and the docstring call it a ValueError",
      _shape_of(check="for other in shapes[1:]:\n"
                      "        if other != shapes[0]:\n"
                      "            raise TypeError(f'items of shapes {shapes[0]} and {other}')")),
    Misconception("an empty list has shape ()",
      "gives an empty list the shape (): it is one level with no items, (0,), as "
      "np.array([]).shape",
      _shape_of(result="((len(data),) + shapes[0]) if shapes else ()")),
    Misconception("anything with a length is a level",
      "takes anything that has a length (hasattr(data, '__len__'), or len() in a try) for "
      "a level: a string is then a list of letters, each letter a string of one letter, "
      "and the recursion never ends (['ab', 'cd'] must have the shape (2,)); a number is "
      "anything that is not a list or a tuple: ask isinstance(data, (list, tuple))",
      _shape_of().replace("if not isinstance(data, (list, tuple)):",
                          "if not hasattr(data, '__len__'):")),
]

# ------------------------------------------------------------------ dtype_of

_DTYPE_OF = """
def dtype_of(flat):
    types = set()
    for v in flat:
        if type(v) not in (bool, int, float):
            {REJECT}
        types.add(type(v))
{DECIDE}
"""
_REJECT = "raise TypeError(f'{v!r} of type {type(v).__name__} is not a number')"


def _dtype_of(decide, reject=_REJECT):
    return fill(_DTYPE_OF, REJECT=reject, DECIDE=decide)


MISCONCEPTIONS["dtype_of"] = [
    Misconception("bool counted as int",
      "tests isinstance(v, int) before bool: True and False are ints in Python too (bool is "
      "a subclass of int), so [True, False] comes out 'int64' instead of 'bool'",
      """
def dtype_of(flat):
    kinds = set()
    for v in flat:
        if isinstance(v, float):
            kinds.add("float64")
        elif isinstance(v, int):
            kinds.add("int64")
        elif isinstance(v, bool):
            kinds.add("bool")
        else:
            raise TypeError(f"{v!r} of type {type(v).__name__} is not a number")
    if "float64" in kinds or not kinds:
        return "float64"
    if "int64" in kinds:
        return "int64"
    return "bool"
"""),
    Misconception("the first element decides",
      "takes the dtype of the first element only: [1, 2.5] comes out 'int64' and "
      "[True, 2] 'bool', where the dtype must hold every element",
      _dtype_of("""    if not flat:
        return "float64"
    first = type(flat[0])
    return {bool: "bool", int: "int64", float: "float64"}[first]""")),
    Misconception("any int makes int64",
      "checks for ints before floats: [1, 2.5] comes out 'int64', but 2.5 does not fit an "
      "int64 slot; any float makes the whole array 'float64'",
      _dtype_of("""    if int in types:
        return "int64"
    if float in types:
        return "float64"
    if bool in types:
        return "bool"
    return 'float64'""")),
    Misconception("any bool makes bool",
      "lets a bool outrank the numbers beside it: [True, 2] comes out 'bool', but 2 is "
      "neither True nor False; bool is the lowest of the three (bool < int64 < float64), so "
      "a bool beside an int becomes the int 1 and the dtype is 'int64'",
      _dtype_of("""    if bool in types:
        return "bool"
    if float in types:
        return "float64"
    if int in types:
        return "int64"
    return 'float64'""")),
    Misconception("compares with True and False",
      "decides 'bool' by value (x in (True, False)): 0 == False and 1 == True, so [0, 1] "
      "comes out 'bool' instead of 'int64'; ask for the type (type(x) is bool)",
      _dtype_of("""    if all(v in (True, False) for v in flat) and flat:
        return "bool"
    if float in types or not types:
        return "float64"
    return 'int64'""")),
    Misconception("whole floats count as ints",
      "decides by value whether a number is whole (x == int(x)): 2.0 is a float, so "
      "[1, 2.0] must be 'float64', not 'int64'; ask for the type, not the value",
      _dtype_of("""    if types and types <= {bool}:
        return "bool"
    if all(v == int(v) for v in flat) and flat:
        return "int64"
    return 'float64'""")),
    Misconception("rejects only strings",
      "rejects strings only: None and complex numbers get a dtype instead of a TypeError; "
      "accept bool, int and float (type(v) in (bool, int, float)) and reject everything "
      "else",
      _dtype_of("""    if types and types <= {bool}:
        return "bool"
    if types and types <= {bool, int}:
        return "int64"
    return 'float64'""", reject="raise TypeError(f'{v!r} of type {type(v).__name__}') "
                                  "if isinstance(v, str) else None")),
    Misconception("stops at the first float",
      "returns 'float64' as soon as it meets a float: the elements after it are never "
      "looked at, so [2.5, None] gets 'float64' instead of a TypeError naming None; check "
      "every element before you decide",
      """
def dtype_of(flat):
    kinds = set()
    for v in flat:
        if type(v) is float:
            return "float64"
        if type(v) not in (bool, int):
            raise TypeError(f"{v!r} of type {type(v).__name__} is not a number")
        kinds.add(type(v))
    if not kinds:
        return "float64"
    return "int64" if int in kinds else "bool"
"""),
    Misconception("float() decides what is a number",
      "takes an element for a number when float() accepts it: float('3') and float('2.5') "
      "work, so a string of digits gets through and the list a dtype, where any string is "
      "a TypeError naming it and its type, str; ask for the type (type(v) in (bool, int, "
      "float))",
      """
def dtype_of(flat):
    types = set()
    for v in flat:
        try:
            float(v)
        except (TypeError, ValueError):
            raise TypeError(f"{v!r} of type {type(v).__name__} is not a number") from None
        types.add(type(v))
    if types and types <= {bool}:
        return "bool"
    if types and types <= {bool, int}:
        return "int64"
    return "float64"
"""),
    Misconception("max() of an empty list",
      "ranks the types and takes max() with no default: an empty list raises ValueError "
      "instead of giving NumPy's default, 'float64'",
      _dtype_of("""    rank = {bool: 0, int: 1, float: 2}
    return ("bool", "int64", "float64")[max(rank[t] for t in types)]""")),
    Misconception("accepts anything",
      "never rejects what is not a number: [1, 'seven', 3] gets a dtype instead of a "
      "TypeError naming 'seven' and its type, str",
      _dtype_of("""    if types and types <= {bool}:
        return "bool"
    if types and types <= {bool, int}:
        return "int64"
    return 'float64'""", reject="pass")),
    Misconception("TypeError names nothing",
      "raises TypeError without naming the culprit: the message must say which element is "
      "not a number ('seven') and what it is (str)",
      _dtype_of("""    if types and types <= {bool}:
        return "bool"
    if types and types <= {bool, int}:
        return "int64"
    return 'float64'""", reject="raise TypeError('not a number')")),
    Misconception("Python's names",
      "returns Python's names for the types, 'int' and 'float', instead of the dtype's: "
      "NumPy's names give the size of a slot too, 'int64' and 'float64' (64 bits, 8 "
      "bytes); only 'bool' has no size in its name",
      _dtype_of("""    if float in types or not types:
        return 'float'
    if int in types:
        return 'int'
    return 'bool'""")),
    Misconception("returns Python's type",
      "returns Python's type (int, float, bool) instead of the dtype's name: NumPy calls "
      "them 'int64', 'float64' and 'bool', the size of a slot included",
      _dtype_of("""    for t in (float, int, bool):
        if t in types:
            return t
    return float""")),
]

# ------------------------------------------------------------------ to_bytes

_TO_BYTES = """
import struct
def to_bytes(flat, dtype):
    formats = {FORMATS}
    {CHECK}
    return {PACK}
"""
_DTYPE_CHECK = ("if dtype not in formats:\n        raise ValueError(f'unknown dtype {dtype!r}: "
                "not bool, int64 or float64')")


def _to_bytes(formats="{'bool': '?', 'int64': 'q', 'float64': 'd'}", check=_DTYPE_CHECK,
              pack="struct.pack('<' + str(len(flat)) + formats[dtype], *flat)"):
    return fill(_TO_BYTES, FORMATS=formats, CHECK=check, PACK=pack)


MISCONCEPTIONS["to_bytes"] = [
    Misconception("big-endian",
      "puts the most significant byte first ('>'): 1.0 comes out 3f f0 00 00 00 00 00 00 "
      "instead of 00 00 00 00 00 00 f0 3f; NumPy, x86 and ARM put the least significant "
      "byte first ('<'), so a reader of the block gets other numbers",
      _to_bytes(pack="struct.pack('>' + str(len(flat)) + formats[dtype], *flat)")),
    Misconception("4-byte ints",
      "packs an int64 into 4 bytes ('i' or 'l', whose standard size is 4): int64 means 64 "
      "bits, 8 bytes, struct's 'q'",
      _to_bytes(formats="{'bool': '?', 'int64': 'i', 'float64': 'd'}")),
    Misconception("native sizes",
      "packs with a format that has no '<' (or with array.array, which has no '<'): "
      "the machine's own sizes and byte order, and a native 'l' is 8 bytes on Linux and "
      "macOS but 4 on Windows, so the same code writes other bytes there; use struct with "
      "'<' first, and 'q'",
      _to_bytes(formats="{'bool': '?', 'int64': 'l', 'float64': 'd'}",
                pack="struct.pack(formats[dtype] * len(flat), *flat)")),
    Misconception("native order",
      "packs in the machine's own byte order ('q' and 'd' with no '<', or '=q'): right on "
      "x86 and ARM, whose own order is little-endian, but a big-endian machine (IBM Z) "
      "puts the most significant byte first; start the format with '<' to ask for "
      "little-endian everywhere",
      _to_bytes(pack="struct.pack(formats[dtype] * len(flat), *flat)")),
    Misconception("ignores the dtype asked for",
      "works out the dtype from the numbers instead of using the one asked for: "
      "to_bytes([1, 2], 'float64') must give float64 slots (1.0 and 2.0), though "
      "dtype_of([1, 2]) is 'int64'; pack as dtype says",
      _to_bytes(pack="struct.pack('<' + str(len(flat)) + formats[_own(flat)], *flat)")
      + """
def _own(flat):
    types = {type(v) for v in flat}
    return 'bool' if types == {bool} else 'float64' if float in types or not types else 'int64'
"""),
    Misconception("float32 slots",
      "packs a float64 into 4 bytes ('f', a float32): float64 means 64 bits, 8 bytes, "
      "struct's 'd'",
      _to_bytes(formats="{'bool': '?', 'int64': 'q', 'float64': 'f'}")),
    Misconception("bools in 8 bytes",
      "packs a bool into 8 bytes, as an int64: NumPy's bool slot is 1 byte (struct's '?'), "
      "so [True, False, True] is b'\\x01\\x00\\x01', three bytes",
      _to_bytes(formats="{'bool': 'q', 'int64': 'q', 'float64': 'd'}")),
    Misconception("each number's type picks its format",
      "picks each number's format from its Python type instead of from the dtype: in a "
      "float64 block the int 1 is packed as an int64 ('q'), whose bytes read as a float are "
      "5e-324, not 1.0; one dtype, one format for every slot",
      _to_bytes(pack="b''.join(struct.pack('<' + {bool: '?', int: 'q', float: 'd'}[type(v)], v) "
                     "for v in flat)")),
    Misconception("a list of bytes",
      "returns a list with one bytes object per number: the block is one bytes object, the "
      "slots joined end to end (b''.join(...), or one struct.pack with a count)",
      _to_bytes(pack="[struct.pack('<' + formats[dtype], v) for v in flat]")),
    Misconception("unsigned ints",
      "packs an int64 as unsigned ('Q', or int.to_bytes without signed=True): a negative "
      "number does not fit, and struct raises an error; int64 is signed, struct's 'q' "
      "(-2 is fe ff ff ff ff ff ff ff)",
      _to_bytes(formats="{'bool': '?', 'int64': 'Q', 'float64': 'd'}")),
    Misconception("int.to_bytes, unsigned",
      "packs the ints with int.to_bytes(8, 'little'), which is unsigned unless told "
      "otherwise: a negative number raises OverflowError; int64 is signed, so pass "
      "signed=True (or use struct's 'q')",
      _to_bytes(pack="b''.join(int(v).to_bytes(8, 'little') if dtype == 'int64' else "
                     "struct.pack('<' + formats[dtype], v) for v in flat)")),
    Misconception("a one-number format for many numbers",
      "packs all the numbers with a format for one ('<q' with *flat): struct raises an "
      "error unless there is exactly one number (pack expected 1 items); put the count in "
      "the format ('<3q') or pack each number and join the pieces",
      _to_bytes(pack="struct.pack('<' + formats[dtype], *flat)")),
    Misconception("checks the dtype in the loop",
      "never checks the dtype when there are no numbers (the check sits in the loop, or "
      "an early return for an empty list comes first): to_bytes([], 'float32') gives b'' "
      "instead of a ValueError; check the dtype first, before anything else",
      _to_bytes(check="pass", pack="b''.join(_pack(v, dtype, formats) for v in flat)")
      + """
def _pack(v, dtype, formats):
    if dtype not in formats:
        raise ValueError(f'unknown dtype {dtype!r}: not bool, int64 or float64')
    return struct.pack('<' + formats[dtype], v)
"""),
    Misconception("KeyError for an unknown dtype",
      "looks the dtype up in a dict without checking it first: 'float32' raises KeyError, "
      "where the caller needs a ValueError that names it and the three dtypes you know",
      _to_bytes(check="pass")),
    Misconception("stores the numbers as the dtype in the caller's list",
      "turns the numbers into the dtype in the caller's own list (flat[k] = float(v)) "
      "before packing them: the bytes are right, but the caller's ints are floats "
      "afterwards; convert copies (or let struct convert: '<d' packs the int 1 as 1.0)",
      _to_bytes(pack="struct.pack('<' + str(len(flat)) + formats[dtype], *_as_dtype(flat, "
                     "dtype))") + """
def _as_dtype(flat, dtype):
    if dtype == 'float64':
        for k, v in enumerate(flat):
            flat[k] = float(v)
    return flat
"""),
    Misconception("no dtype check",
      "packs an unknown dtype as something else (dict.get with a default): 'float32' gives "
      "float64 bytes instead of a ValueError that names it and the three dtypes you know",
      _to_bytes(check="pass", pack="struct.pack('<' + str(len(flat)) + formats.get(dtype, 'd'), "
                                   "*flat)")),
]

# ------------------------------------------------------------------ stretch: unflatten

_UNFLATTEN = """
def unflatten(flat, shape):
    n = 1
    for d in shape:
        n *= d
    {CHECK}
    if not shape:
        return {SCALAR}
    step = n // shape[0] if shape[0] else 0
    return [{PART} for i in range(shape[0])]
"""
_SIZE_CHECK = ('if len(flat) != n:\n        raise ValueError(f"{len(flat)} numbers cannot fill '
               'shape {shape}")')


def _unflatten(check=_SIZE_CHECK, scalar="flat[0]",
               part="unflatten(flat[i * step:(i + 1) * step], shape[1:])"):
    return fill(_UNFLATTEN, CHECK=check, SCALAR=scalar, PART=part)


MISCONCEPTIONS["unflatten"] = [
    Misconception("deals the numbers out like cards",
      "gives item i every shape[0]-th number (flat[i::shape[0]]) instead of the next block: "
      "(2, 3) comes out as [[1, 3, 5], [2, 4, 6]], the first axis moving fastest",
      _unflatten(part="unflatten(flat[i::shape[0]], shape[1:])")),
    Misconception("one level only",
      "cuts the list into shape[0] blocks but never goes further down: (2, 3) is right, but a "
      "vector becomes a list of one-number lists and (2, 2, 2) stays two levels deep",
      _unflatten(part="flat[i * step:(i + 1) * step]")),
    Misconception("no size check",
      "never compares len(flat) with the number of elements the shape holds: numbers that "
      "do not fit are dropped or the last block comes out short, instead of a ValueError",
      _unflatten(check="pass")),
    Misconception("scalar in a list",
      "returns [number] for the empty shape instead of the number: every innermost number "
      "comes out wrapped in a list of one",
      _unflatten(scalar="[flat[0]]")),
    Misconception("block size from len(flat) // shape[0]",
      "computes the block size as len(flat) // shape[0]: for a shape with no rows, (0, 3), "
      "that divides by zero; the product of shape[1:] is the size of a block",
      _unflatten().replace("step = n // shape[0] if shape[0] else 0",
                           "step = len(flat) // shape[0]")),
    Misconception("groups bottom-up",
      "builds the lists from the inside out, cutting the numbers into rows of the last "
      "size: with no numbers there is nothing to cut, so the outer sizes are lost "
      "(unflatten([], (2, 0)) must be two empty rows, [[], []]); make the lists from the "
      "outside in, counting them from the shape",
      """
def unflatten(flat, shape):
    n = 1
    for d in shape:
        n *= d
    if len(flat) != n:
        raise ValueError(f"{len(flat)} numbers cannot fill shape {shape}")
    if not shape:
        return flat[0]
    out = list(flat)
    for d in reversed(shape[1:]):
        out = [out[i:i + d] for i in range(0, len(out), d)]
    return out
"""),
    Misconception("rows are one list",
      "makes the rows with [[None] * size] * rows: that repeats one list object, it copies "
      "nothing, so every row is the same list and ends up holding the last row's numbers "
      "([[4, 5, 6], [4, 5, 6]]); make each row a new list (slice flat, or a comprehension)",
      """
def unflatten(flat, shape):
    n = 1
    for d in shape:
        n *= d
    if len(flat) != n:
        raise ValueError(f"{len(flat)} numbers cannot fill shape {shape}")
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = n // shape[0] if shape[0] else 0
    rows = [[None] * step] * shape[0]
    for i in range(shape[0]):
        for j in range(step):
            rows[i][j] = flat[i * step + j]
    return [unflatten(row, shape[1:]) for row in rows]
"""),
    Misconception("prints flat, not its length",
      "puts flat itself in the error message instead of its length: the reader has to "
      "count the numbers; name how many there are (5) and the shape ((2, 3))",
      _unflatten(check='if len(flat) != n:\n        raise ValueError(f"cannot fit {flat} '
                       'into the shape {shape}")')),
    Misconception("checks that the length divides",
      "checks only that shape[0] divides len(flat): numbers left over are dropped "
      "(unflatten of 6 numbers into (3,) gives 3 of them) instead of a ValueError; the "
      "length must equal the product of all the sizes",
      _unflatten(check="if (shape and shape[0] and len(flat) % shape[0]) or (\n"
                       "            not shape and len(flat) != 1):\n"
                       "        raise ValueError(f'{len(flat)} numbers cannot fill {shape}')\n"
                       "    if shape and len(flat) != n:\n"
                       "        flat = flat[:n]")),
    Misconception("the empty shape before the size check",
      "returns flat[0] for the empty shape before comparing len(flat) with the number of "
      "elements: unflatten([1, 2], ()) gives 1 instead of a ValueError; the shape () holds "
      "exactly one number, so check the length first",
      _unflatten().replace("    if not shape:\n        return flat[0]\n", "").replace(
          "    n = 1\n", "    if not shape:\n        return flat[0]\n    n = 1\n")),
    Misconception("the empty rows before the size check",
      "returns [] for a shape with no rows ((0, 3)) before comparing len(flat) with the "
      "number of elements: unflatten([5], (0, 3)) gives [] instead of a ValueError; a shape "
      "with a 0 holds no numbers, so any number is one too many: check the length first",
      _unflatten().replace("    n = 1\n", "    if shape and shape[0] == 0:\n"
                                            "        return []\n    n = 1\n", 1)),
    Misconception("returns a 1-D input itself",
      "returns flat itself when the shape has one axis: the numbers are right, but the "
      "result is the caller's list, so changing one changes the other",
      _unflatten().replace("    if not shape:", "    if len(shape) == 1:\n        return flat\n"
                                                   "    if not shape:")),
]
