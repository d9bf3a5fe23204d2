"""Checkpoint 00 (welcome): the warm-up exercises, ``flatten``, ``shape_of``,
``dtype_of`` and ``to_bytes``.

After each exercise's tests, its contract (``checkpoint.contract``) judges it on
generated inputs against the lesson's own solution (``stridegrad.course.contracts``):
nested lists of every depth, with tuples, empty lists and one row object used twice;
ragged lists with one odd item at any level; every kind of number and of what is not
one; every dtype, also with struct, array and ``sys.byteorder`` as 64-bit Windows and
a big-endian IBM Z have them.
"""

from __future__ import annotations

import array
import contextlib
import inspect
import math
import random
import struct
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import strategies as st

from stridegrad.course.checks import (ANY, CheckFailure, Checkpoint, expect, raised, short_repr,
                                     type_note)
from stridegrad.course.contracts import Call, Invalid

__all__ = ["checkpoint"]

# what stridegrad.array.asarray (or NumPy) does with a nested list is these exercises:
# a function that calls it, its helpers or NumPy instead gets no credit
_ASARRAY = ("stridegrad.array.asarray", "stridegrad.array._creation._flatten",
            "stridegrad.array._creation._infer", "stridegrad.array._core._infer_dtype",
            "numpy")
checkpoint = Checkpoint("00_welcome", "welcome", library={
    "flatten": _ASARRAY, "shape_of": _ASARRAY, "dtype_of": _ASARRAY, "to_bytes": _ASARRAY,
    "unflatten": _ASARRAY + ("stridegrad.array.reshape",)})


@checkpoint.test("flatten", hint="Walk the rows in order and add each row's numbers to one list.")
def flattens_a_matrix(flatten):
    expect(flatten, [[1, 2, 3], [4, 5, 6]], returns=[1, 2, 3, 4, 5, 6])
    expect(flatten, [[3, 1], [2, 0]], returns=[3, 1, 2, 0])  # in reading order, not sorted


@checkpoint.test("flatten", hint="A flat list is already flat: return its numbers, in order.")
def keeps_a_flat_list(flatten):
    expect(flatten, [7, 8, 9], returns=[7, 8, 9])


@checkpoint.test("flatten", hint="Lists can nest to any depth, three levels or thirty: call "
                                 "flatten on each item (recursion) instead of assuming rows of "
                                 "numbers.")
def flattens_any_depth(flatten):
    expect(flatten, [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], returns=[1, 2, 3, 4, 5, 6, 7, 8])
    expect(flatten, [[[[1]], 2], 3], returns=[1, 2, 3])


@checkpoint.test("flatten", hint="A tuple is a sequence too (the docstring: lists or tuples, "
                                 "to any depth): (1, 2) in a list is two numbers, not one.")
def takes_tuples_too(flatten):
    expect(flatten, [(1, 2), (3, 4)], returns=[1, 2, 3, 4])
    expect(flatten, ((1,), [2, (3, 4.5)]), returns=[1, 2, 3, 4.5])


@checkpoint.test("flatten", hint="flatten moves the numbers, it does not convert them: the int 1 "
                                 "stays an int and True stays True (dtype_of reads their types "
                                 "from flatten's result).")
def keeps_each_number_as_it_is(flatten):
    got = expect(flatten, [[1, 2.5], [True, 4]], returns=[1, 2.5, True, 4])
    types = ", ".join(type(x).__name__ for x in got)
    if types != "int, float, bool, int":
        name = getattr(flatten, "__name__", "flatten")
        raise CheckFailure(f"the types in {name}([[1, 2.5], [True, 4]])",
                           "int, float, bool, int", types)


@checkpoint.test("flatten", hint="A single number (an int or a float) is a 0-dimensional "
                                 "array with one element: return it in a list of one.")
def wraps_a_single_number(flatten):
    expect(flatten, 42, returns=[42])
    expect(flatten, 2.5, returns=[2.5])


@checkpoint.test("flatten", hint="An empty list has no numbers: return an empty list.")
def empty_list(flatten):
    expect(flatten, [], returns=[])


@checkpoint.test("flatten", hint="Build new lists: change nothing you were given (no pop, no "
                                 "extend on the caller's own rows), and let the result hold none "
                                 "of the caller's lists (flatten those too).")
def neither_changes_nor_shares_the_input(flatten):
    # only the inputs after the call, and the lists the result shares with them: a
    # wrong value is the other tests' business
    expect(flatten, [[1, 2], [3, 4]], returns=ANY, unchanged=True)
    expect(flatten, [[[5, 6]], [[7, 8]]], returns=ANY, unchanged=True)


@checkpoint.test("flatten", hint="Return a new list, even when the input is already flat, and "
                                 "leave the caller's list as it was: it must not change now (no "
                                 "pop), nor later when the result does.",
                 hint_for=("returns a flat input itself",))
def returns_a_new_list(flatten):
    expect(flatten, [5, 6], returns=[5, 6], unchanged=True)


# numbers of every kind a nested list holds: ints small and past 64 bits, bools (an
# int to isinstance), floats with and without a fraction, -0.0 and inf
_NUMBER_POOL = [0, 1, -1, 7, -9, 258, 2 ** 63, -2 ** 70, True, False, 0.0, -0.0, 2.0, 2.5,
                -1.25, 1e100, math.inf]


def _number(rng: random.Random) -> Any:
    return rng.choice(_NUMBER_POOL) if rng.random() < 0.8 else rng.randint(-10 ** 6, 10 ** 6)


def _seeded(build: Callable[[random.Random], Any]) -> st.SearchStrategy:
    """The cases ``build`` makes from a Random that Hypothesis seeds: the same every run
    (derandomized), and far cheaper to draw than one Hypothesis draw per choice."""
    return st.randoms(use_true_random=True).map(build)


def _nested(rng: random.Random, depth: int, budget: list) -> Any:
    """A nested list up to ``depth`` levels deep: lists, tuples, empty ones, one row
    object used several times (``[row] * 3``, as ``[[0] * 3] * 2`` makes), ragged ones
    (flatten needs no shape); at most ``budget[0]`` numbers in all."""
    if depth == 0 or budget[0] <= 0 or rng.random() < 0.3:
        budget[0] -= 1
        return _number(rng)
    items = [_nested(rng, depth - 1, budget) for _ in range(rng.randint(0, 4))]
    kind = rng.random()
    if kind < 0.25:
        return tuple(items)
    if kind < 0.4 and items:
        return [items] * rng.randint(2, 3)
    return items


def _flatten_case(rng: random.Random) -> Call:
    """A nested list; one time in four four to seven levels deep (a fixed number of
    loops is not enough), a number beside each level."""
    data = _nested(rng, rng.randint(0, 4), [12])
    if rng.random() < 0.25:
        for _ in range(rng.randint(4, 7)):
            data = rng.choice([[data], [_number(rng), data], [data, _number(rng)]])
    return Call((data,))


checkpoint.contract("flatten", valid=_seeded(_flatten_case))


# ------------------------------------------------------------------ shape_of

@checkpoint.test("shape_of", hint="Two rows of three numbers: the outer list has 2 items, each "
                                  "of which has 3.")
def shape_of_a_matrix(shape_of):
    expect(shape_of, [[1, 2, 3], [4, 5, 6]], returns=(2, 3))
    expect(shape_of, [[1, 2], [3, 4], [5, 6]], returns=(3, 2))


@checkpoint.test("shape_of", hint="A number has no levels at all: its shape is the empty "
                                  "tuple ().")
def a_number_has_shape_empty(shape_of):
    expect(shape_of, 7, returns=())
    expect(shape_of, 2.5, returns=())


@checkpoint.test("shape_of", hint="Every level counts, to any depth: 3 items, each of 2 items, "
                                  "each of 1 number.")
def three_levels(shape_of):
    expect(shape_of, [[[1], [2]], [[3], [4]], [[5], [6]]], returns=(3, 2, 1))


@checkpoint.test("shape_of", hint="An empty list (or tuple) has one level of size 0: (0,). Two "
                                  "empty rows are (2, 0).")
def empty_lists(shape_of):
    expect(shape_of, [], returns=(0,))
    expect(shape_of, [[], []], returns=(2, 0))
    expect(shape_of, (), returns=(0,))
    expect(shape_of, [(), ()], returns=(2, 0))


@checkpoint.test("shape_of", hint="Rows of different sizes (2 numbers and 1, or 1 and 3) have "
                                  "no common shape, whichever rows they are: raise ValueError "
                                  "naming both sizes. "
                                  "NumPy refuses them too, but its message names no sizes: yours "
                                  "should.")
def rejects_ragged_rows(shape_of):
    # numbers that are not the sizes: a message that prints the list names no size
    expect(shape_of, [[7, 8], [9]], raises=ValueError, naming=(2, 1))
    expect(shape_of, [[5], [6, 7, 8]], raises=ValueError, naming=(1, 3))
    expect(shape_of, [[7, 8], [9], [6, 5]], raises=ValueError, naming=(2, 1))
    expect(shape_of, [[7, 8], [6, 5], [9]], raises=ValueError, naming=(2, 1))


@checkpoint.test("shape_of", hint="A tuple is a level too (the docstring: a number is anything "
                                  "that is not a list or a tuple): ((1, 2), (3, 4), (5, 6)) "
                                  "has the shape (3, 2).")
def tuples_are_levels_too(shape_of):
    expect(shape_of, ((1, 2), (3, 4), (5, 6)), returns=(3, 2))
    expect(shape_of, [(1, 2), [3, 4]], returns=(2, 2))


@checkpoint.test("shape_of", hint="A number beside a list is ragged too: [[1, 2], 3] mixes an "
                                  "item of shape (2,) with one of shape ().")
def rejects_a_number_beside_a_list(shape_of):
    expect(shape_of, [[1, 2], 3], raises=ValueError)


@checkpoint.test("shape_of", hint="Items of the same length can still differ further down: "
                                  "[[[1, 2]], [[3]]] has two items of length 1 whose rows "
                                  "have 2 and 1 numbers. Compare the items' whole shapes.",
                 hint_for=("compares lengths only",))
def rejects_raggedness_deeper_down(shape_of):
    expect(shape_of, [[[1, 2]], [[3]]], raises=ValueError)
    expect(shape_of, [[1, 2], [3, [4]]], raises=ValueError)


# what a nested list may hold where a number goes: a number is anything that is not a
# list or a tuple (the docstring), a string or None too
_ITEM_POOL = _NUMBER_POOL + ["ab", "x", "", None]


def _nested_of(rng: random.Random, shape: tuple) -> Any:
    """A nested list of ``shape``, each level a list or (one time in four) a tuple."""
    if not shape:
        return rng.choice(_ITEM_POOL)
    items = [_nested_of(rng, shape[1:]) for _ in range(shape[0])]
    return tuple(items) if rng.random() < 0.25 else items


def _some_shape(rng: random.Random, max_rank: int, min_side: int = 0,
                max_numel: int = 64) -> list:
    """Ranks 0 to ``max_rank``, sizes ``min_side`` to 4, unequal ones, at most
    ``max_numel`` elements."""
    shape = [rng.randint(min_side, 4) for _ in range(rng.randint(0, max_rank))]
    while math.prod(shape) > max_numel:
        shape[rng.randrange(len(shape))] -= 1
    return shape


def _regular(rng: random.Random) -> Call:
    """Ranks 0 to 5, sizes 0 to 4: what follows a size 0 cannot be written as lists."""
    shape = tuple(_some_shape(rng, 5))
    if 0 in shape:
        shape = shape[:shape.index(0) + 1]
    return Call((_nested_of(rng, shape),))


def _loose_shape(data: Any) -> tuple | None:
    """The shape of ``data``, or None if it is ragged."""
    if not isinstance(data, (list, tuple)):
        return ()
    shapes = {_loose_shape(item) for item in data}
    if None in shapes or len(shapes) > 1:
        return None
    return (len(data),) + (shapes.pop() if shapes else ())


def _clash(data: Any) -> tuple:
    """The sizes that clash in a ragged nested list with one odd item: at the first level
    where the odd item's shape and its neighbours' differ (a number beside a list: the
    list's size alone)."""
    shapes = [_loose_shape(item) for item in data]
    if None in shapes:
        return _clash(data[shapes.index(None)])
    one, other = shapes[0], next(s for s in shapes if s != shapes[0])
    k = next(k for k in range(max(len(one), len(other)))
             if k >= len(one) or k >= len(other) or one[k] != other[k])
    return tuple(s[k] for s in (one, other) if k < len(s))


def _ragged(rng: random.Random) -> Call:
    """A regular nested list (every size 1 to 3) with one item at some level changed: a
    list of another length, or a number where a list goes (or a list where a number
    goes), anywhere among two or more neighbours, under any item of the levels above."""
    shape = [rng.randint(1, 3) for _ in range(rng.randint(1, 4))]
    level = rng.randint(1, len(shape))  # the odd item is an item of a list at level - 1
    shape[level - 1] = rng.choice([2, 3, 4])  # two neighbours or more, the odd one among them

    def build(shape):
        return [build(shape[1:]) for _ in range(shape[0])] if shape else _number(rng)

    data = build(shape)
    parent = data
    for size in shape[:level - 1]:
        parent = parent[rng.randrange(size)]
    rest = shape[level:]  # the shape of each item of parent
    if rest and rng.random() < 0.4:
        odd = _number(rng)  # a number beside lists
    elif rest:
        odd = build([rng.choice([n for n in range(rest[0] + 3) if n != rest[0]])] + rest[1:])
    else:
        odd = build([rng.randint(0, 3)])  # a list beside numbers
    # first, last or in between: a check of the first two (or the first and last) misses it
    parent[rng.choice([0, len(parent) - 1, rng.randrange(1, len(parent))])] = odd

    def tuples(x):  # some levels written as tuples
        if not isinstance(x, list):
            return x
        items = [tuples(item) for item in x]
        return tuple(items) if rng.random() < 0.25 else items

    return Call((tuples(data),))


checkpoint.contract("shape_of", valid=_seeded(_regular), invalid_cases=20, invalid=[
    Invalid(_seeded(_ragged), ValueError, "ragged lists (one item of another shape, at any level)",
            naming=_clash)])


# ------------------------------------------------------------------ dtype_of

@checkpoint.test("dtype_of", hint="Ints only: each fits an int64 slot. 0 and 1 are ints, even "
                                  "though 0 == False and 1 == True: ask for the type, not the "
                                  "value.")
def ints_give_int64(dtype_of):
    expect(dtype_of, [1, 2, 3], returns="int64")
    expect(dtype_of, [0, 1], returns="int64")  # equal to False and True, but ints


@checkpoint.test("dtype_of", hint="One float among ints makes every slot a float64, wherever it "
                                  "stands (2.0 is a float too): every element must fit the one "
                                  "type.",
                 hint_for=("the first element decides", "any int makes int64"))
def one_float_makes_float64(dtype_of):
    expect(dtype_of, [1, 2.5, 3], returns="float64")
    expect(dtype_of, [2.5, 1], returns="float64")
    expect(dtype_of, [0.5, 1.5], returns="float64")
    expect(dtype_of, [1, 2.0], returns="float64")  # a float with no fraction


@checkpoint.test("dtype_of", hint="Only True and False: NumPy stores them as 'bool'. In Python "
                                  "True is an int too (isinstance(True, int) is True), so test "
                                  "for bool first.",
                 hint_for=("bool counted as int",))
def bools_give_bool(dtype_of):
    expect(dtype_of, [True, False, True], returns="bool")


@checkpoint.test("dtype_of", hint="True beside 2 cannot be a bool slot; it becomes the int 1: "
                                  "'int64'. With a float, everything is 'float64'.",
                 hint_for=("the first element decides", "any bool makes bool"))
def bools_mix_with_numbers(dtype_of):
    expect(dtype_of, [True, 2], returns="int64")
    expect(dtype_of, [3, False], returns="int64")
    expect(dtype_of, [True, 2.5], returns="float64")


@checkpoint.test("dtype_of", hint="No elements at all: NumPy's default, 'float64', as "
                                  "np.array([]).dtype.")
def empty_gives_float64(dtype_of):
    expect(dtype_of, [], returns="float64")


@checkpoint.test("dtype_of", hint="A string (or None, or a complex number) is not a number a "
                                  "slot can hold: raise TypeError naming the element and its "
                                  "type.")
def rejects_what_is_not_a_number(dtype_of):
    expect(dtype_of, [1, "seven", 3], raises=TypeError, naming=("seven", "str"))
    expect(dtype_of, [None, 2.5], raises=TypeError, naming=("None", "NoneType"))
    expect(dtype_of, [2.5, "eight"], raises=TypeError, naming=("eight", "str"))
    expect(dtype_of, [1, 2j], raises=TypeError, naming=("2j", "complex"))


# bools, ints (0 and 1 equal False and True), floats (whole ones too, -0.0, inf)
def _bool(rng: random.Random) -> bool:
    return rng.random() < 0.5


def _int(rng: random.Random) -> int:
    kind = rng.random()
    return rng.choice([0, 1]) if kind < 0.3 else rng.randint(-3, 3) if kind < 0.6 else \
        rng.randint(-2 ** 62, 2 ** 62)


def _whole_float(rng: random.Random) -> float:
    return rng.choice([0.0, -0.0, 1.0, 2.0, -3.0, 1e300])


def _float(rng: random.Random) -> float:
    return rng.choice([_whole_float(rng), 0.5, -2.5, 1e-300, math.inf, -math.inf])


def _flat_numbers(rng: random.Random) -> list:
    """Bools alone, ints alone, or a mix (bools with ints, ints with whole floats, all
    three, ...), each kind of the mix at least once, in any order; or no numbers."""
    if rng.random() < 1 / 6:
        return []
    kinds = rng.choice([[_bool], [_int], [_float], [_bool, _int], [_int, _whole_float],
                        [_bool, _float], [_bool, _int, _float]])
    flat = [kind(rng) for kind in kinds] + [rng.choice(kinds)(rng)
                                            for _ in range(rng.randint(0, 3))]
    rng.shuffle(flat)
    return flat


# what is not a number a slot can hold: a string (digits too: float("3") works), None,
# a complex number, a list, a tuple
_NOT_NUMBERS = ["seven", "3", "2.5", "True", None, 2j, 1 + 0j, [1], (2.5,)]


def _with_one_not_a_number(rng: random.Random) -> Call:
    """Numbers as the valid cases have them, and one element that is none, anywhere."""
    flat = _flat_numbers(rng)
    flat.insert(rng.randint(0, len(flat)), rng.choice(_NOT_NUMBERS))
    return Call((flat,))


def _the_odd_element(flat: list) -> tuple:
    bad = next(v for v in flat if type(v) not in (bool, int, float))
    return bad, type(bad).__name__


checkpoint.contract(
    "dtype_of", valid=_seeded(lambda rng: Call((_flat_numbers(rng),))), invalid_cases=20,
    invalid=[Invalid(_seeded(_with_one_not_a_number), TypeError, "lists with one element "
                     "that is not a bool, an int or a float", naming=_the_odd_element)])


# ------------------------------------------------------------------ to_bytes

@checkpoint.test("to_bytes", hint="A float64 slot is 8 bytes, the least significant first: "
                                  "struct's '<d' for each number, all in one bytes object.")
def packs_float64(to_bytes):
    expect(to_bytes, [1.0, -2.5], "float64", returns=struct.pack("<2d", 1.0, -2.5))


@checkpoint.test("to_bytes", hint="An int64 slot is 8 bytes, signed: struct's 'q' (not 'i' or "
                                  "'l', whose standard size is 4, nor the unsigned 'Q'). -2 is "
                                  "stored in two's complement, fe ff ff ff ff ff ff ff.")
def packs_int64(to_bytes):
    expect(to_bytes, [1, -2, 3], "int64", returns=struct.pack("<3q", 1, -2, 3))


@checkpoint.test("to_bytes", hint="Least significant byte first: 258 is 0x0102, stored as "
                                  "02 01 00 00 00 00 00 00.",
                 hint_for=("big-endian",))
def least_significant_byte_first(to_bytes):
    expect(to_bytes, [258], "int64", returns=b"\x02\x01" + bytes(6))
    expect(to_bytes, [1.0], "float64", returns=bytes(6) + b"\xf0\x3f")


@checkpoint.test("to_bytes", hint="Every slot holds the dtype, whatever each number's Python "
                                  "type: in a float64 block the int 1 and True are stored as "
                                  "1.0, in an int64 block True is 1. The dtype picks one format "
                                  "for the whole block.",
                 hint_for=("each number's type picks its format",))
def numbers_take_the_dtype(to_bytes):
    expect(to_bytes, [1, 2.5, True], "float64", returns=struct.pack("<3d", 1.0, 2.5, 1.0))
    expect(to_bytes, [True, 7], "int64", returns=struct.pack("<2q", 1, 7))
    # the dtype asked for, even where dtype_of(flat) would say another
    expect(to_bytes, [1, 2], "float64", returns=struct.pack("<2d", 1.0, 2.0))
    expect(to_bytes, [True, False], "int64", returns=struct.pack("<2q", 1, 0))


@checkpoint.test("to_bytes", hint="A bool slot is one byte, 1 for True and 0 for False: "
                                  "struct's '?'.",
                 hint_for=("bools in 8 bytes",))
def bools_take_one_byte(to_bytes):
    expect(to_bytes, [True, False, True], "bool", returns=b"\x01\x00\x01")


@checkpoint.test("to_bytes", hint="No numbers, no slots: b'' for each of the three dtypes.")
def no_numbers_no_bytes(to_bytes):
    expect(to_bytes, [], "float64", returns=b"")
    expect(to_bytes, [], "bool", returns=b"")


#: the machines a to_bytes is also run on, by the name a row gives them
_MACHINES = {"64-bit Windows": "windows", "a big-endian IBM Z": "big"}


def _native(body: str, machine: str) -> str:
    """A format's characters with the machine's own sizes written as standard ones: a C
    long ('l', 'L') is 4 bytes on 64-bit Windows and 8 on 64-bit Linux (an IBM Z
    too); ssize_t, size_t and pointers ('n', 'N', 'P') are 8 bytes on both."""
    long = "iI" if machine == "windows" else "qQ"
    return body.translate(str.maketrans({"l": long[0], "L": long[1], "n": "q", "N": "Q",
                                         "P": "Q"}))


def _elsewhere(fmt: str, machine: str) -> str:
    """A struct format as another machine reads it. With no byte order first ('<', '>',
    '!'), struct uses the machine's own byte order ('=': with standard sizes; nothing
    or '@': with the machine's own sizes too): on 64-bit Windows a C
    long ('l', 'L') is 4 bytes, not 8; on a big-endian machine (IBM Z) the most
    significant byte comes first."""
    own = ">" if machine == "big" else "<"
    if fmt[:1] and fmt[0] in "<>!":
        return fmt  # standard sizes and an explicit order: the same everywhere
    if fmt[:1] == "=":  # standard sizes, but the machine's own order
        return own + fmt[1:]
    return own + _native(fmt.lstrip("@"), machine)


_PACK, _CALCSIZE, _STRUCT, _ARRAY = struct.pack, struct.calcsize, struct.Struct, array.array
_BYTEORDER = sys.byteorder


def _struct_on(machine: str) -> Any:
    """The struct module as a learner's code would find it on ``machine``."""
    return types.SimpleNamespace(
        error=struct.error,
        pack=lambda fmt, *values: _PACK(_elsewhere(fmt, machine), *values),
        calcsize=lambda fmt: _CALCSIZE(_elsewhere(fmt, machine)),
        Struct=lambda fmt: _STRUCT(_elsewhere(fmt, machine)))


def _array_on(machine: str) -> Any:
    """The array module as ``machine`` has it, as far as an array of numbers made, grown,
    byte-swapped and written out goes (``array(code, numbers)``, ``append``, ``extend``,
    ``byteswap``, ``tobytes``, ``bytes(a)``): the machine's own sizes and byte order,
    as struct's native ones."""
    class Array:
        def __init__(self, typecode, initializer=()):
            self.typecode, self._numbers, self._swapped = typecode, [], False
            self.itemsize = _CALCSIZE(_elsewhere(typecode, machine))
            self.extend(initializer)

        def append(self, number):
            self._numbers.append(number)

        def extend(self, numbers):
            self._numbers.extend(numbers)

        fromlist = extend

        def tolist(self):
            return list(self._numbers)

        def byteswap(self):
            self._swapped = not self._swapped

        def tobytes(self):
            fmt = _elsewhere(self.typecode * len(self._numbers), machine)
            if self._swapped:
                fmt = {"<": ">", ">": "<"}[fmt[0]] + fmt[1:]
            return _PACK(fmt, *self._numbers)

        __bytes__ = tobytes

        def __len__(self):
            return len(self._numbers)

        def __iter__(self):
            return iter(self._numbers)

        def __getitem__(self, k):
            return self._numbers[k]

    return types.SimpleNamespace(array=Array)


@contextlib.contextmanager
def _on_machine(machine: str, fn: Callable) -> Iterator[None]:
    """Run ``fn`` (a learner's to_bytes) as on ``machine``: the struct and array
    modules' own functions (however the module was imported), the notebook's names
    for them (``from struct import pack``) and ``sys.byteorder`` (``from sys import
    byteorder`` too) as that machine has them, for the time of the ``with``."""
    scope = getattr(inspect.unwrap(fn), "__globals__", {})  # check() wraps it
    fake, fake_array = _struct_on(machine), _array_on(machine)
    modules = [(struct, "pack", _PACK, fake.pack), (struct, "calcsize", _CALCSIZE,
                fake.calcsize), (struct, "Struct", _STRUCT, fake.Struct),
               (array, "array", _ARRAY, fake_array.array),
               (sys, "byteorder", _BYTEORDER, "big" if machine == "big" else "little")]
    swaps = {name: new for _, _, real, new in modules for name, value in scope.items()
             if value is real}
    saved = {name: scope[name] for name in swaps}
    try:
        scope.update(swaps)
        for module, attr, _, new in modules:
            setattr(module, attr, new)
        yield
    finally:
        for module, attr, real, _ in modules:
            setattr(module, attr, real)
        scope.update(saved)


@checkpoint.test("to_bytes", hint="With '<' first, struct writes the same bytes on every "
                                  "machine: 'q' is 8 bytes, least significant first. Without it "
                                  "struct uses the machine's own sizes and order: a native 'l' "
                                  "is 4 bytes on Windows, and an IBM Z puts the most "
                                  "significant byte first.")
def the_same_bytes_on_every_machine(to_bytes):
    # run the learner's to_bytes with struct, array and sys.byteorder as another machine
    # has them: code that asks sys.byteorder and swaps the bytes is right everywhere
    for where, machine in _MACHINES.items():
        name = getattr(to_bytes, "__name__", "to_bytes")
        call = f"{name}([1, -2], 'int64') with struct, array and sys.byteorder as on {where}"
        want = _PACK("<2q", 1, -2)
        with _on_machine(machine, to_bytes):
            try:
                got = to_bytes([1, -2], "int64")
            except NotImplementedError:
                raise  # not written yet: the row says so, as every other test's does
            except Exception as exc:  # noqa: BLE001 - the learner's code may fail in any way
                raise CheckFailure(call, short_repr(want), raised(exc), kind="error") from exc
        if type(got) is not bytes or got != want:
            raise CheckFailure(call, short_repr(want), short_repr(got) + type_note(got, want))


@checkpoint.test("to_bytes", hint="Only 'bool', 'int64' and 'float64' are known: for 'float32' "
                                  "raise ValueError naming it and the three you know.")
def rejects_an_unknown_dtype(to_bytes):
    expect(to_bytes, [1.0], "float32", raises=ValueError,
           naming=("float32", "bool", "int64", "float64"))
    expect(to_bytes, [1, 2], "int32", raises=ValueError,
           naming=("int32", "bool", "int64", "float64"))
    expect(to_bytes, [], "float32", raises=ValueError,
           naming=("float32", "bool", "int64", "float64"))


def _to_bytes_on(to_bytes: Callable, flat: list, dtype: str, machine: str | None = None) -> Any:
    """The contract's scenario: ``to_bytes(flat, dtype)``, here or (``machine``) with
    struct, array and sys.byteorder as that machine has them."""
    if machine is None:
        return to_bytes(flat, dtype)
    with _on_machine(_MACHINES[machine], to_bytes):
        return to_bytes(flat, dtype)


# what each dtype holds (what dtype_of accepts and the dtype can hold): int64's ends too
def _int64(rng: random.Random) -> int:
    return rng.choice([_int(rng), -2 ** 63, 2 ** 63 - 1, 258, -2])


def _float64(rng: random.Random) -> float:
    return rng.choice([_float(rng), _float(rng), 5e-324, -1.5, 1 / 3])


#: what each dtype holds (what dtype_of accepts and the dtype can hold), kind by kind:
#: int64's ends, float64's smallest, thirds; bools and ints in a float64 block too
_HELD = {"bool": [[_bool]],
         "int64": [[_int64], [_bool], [_bool, _int64]],
         "float64": [[_float64], [_bool], [_int], [_bool, _int, _float64],
                     [lambda rng: rng.randint(-2 ** 53, 2 ** 53)]]}


def _held(dtype: str, rng: random.Random, n: int) -> list:
    """``n`` numbers that ``dtype`` holds, of one of the kinds it can hold."""
    kinds = rng.choice(_HELD[dtype])
    return [rng.choice(kinds)(rng) for _ in range(n)]


def _packings(rng: random.Random) -> Call:
    """Up to five numbers of a dtype; here, or as on 64-bit Windows or an IBM Z."""
    dtype = rng.choice(["bool", "int64", "float64"])
    flat = _held(dtype, rng, rng.randint(0, 5))
    machine = rng.choice([None, None, *_MACHINES])
    return Call((flat, dtype), {"machine": machine} if machine else {})


# dtypes that are not one of the three: NumPy's others, Python's names, struct's letters
_UNKNOWN = ["float32", "int32", "uint8", "float", "int", "Float64", "INT64", "f8", "<f8", "d",
            "q", "?", "double", "boolean", "float64 "]


def _unknown_dtypes(rng: random.Random) -> Call:
    flat = [] if rng.random() < 0.5 else _held("float64", rng, rng.randint(1, 3))
    return Call((flat, rng.choice(_UNKNOWN)))


checkpoint.contract(
    "to_bytes", valid=_seeded(_packings), scenario=_to_bytes_on,
    invalid_cases=20, invalid=[Invalid(_seeded(_unknown_dtypes), ValueError, "dtypes that are not one of the three, "
                     "with numbers or without",
                     naming=lambda flat, dtype: (dtype, "bool", "int64", "float64"))],
    hint="This row tries up to 40 blocks of every dtype, with struct, array and "
         "sys.byteorder as here or (machine=...) as 64-bit Windows or a big-endian IBM Z "
         "has them, and up to 20 unknown dtypes, drawn by Hypothesis (the same ones every "
         "run), and shows the smallest your function gets wrong: compare it with the "
         "docstring, then try that call yourself (machine=...: which of your formats and "
         "sizes depend on the machine?).")


# ------------------------------------------------------------------ stretch: unflatten

@checkpoint.test("unflatten", hint="Two rows of three: the first three numbers are row 0.",
                 stretch=True)
def unflattens_a_matrix(unflatten):
    expect(unflatten, [1, 2, 3, 4, 5, 6], (2, 3), returns=[[1, 2, 3], [4, 5, 6]])


@checkpoint.test("unflatten", hint="Three rows of two: not the same as two rows of three.",
                 stretch=True)
def unflattens_a_tall_matrix(unflatten):
    expect(unflatten, [1, 2, 3, 4, 5, 6], (3, 2), returns=[[1, 2], [3, 4], [5, 6]])


@checkpoint.test("unflatten", hint="Every level of the shape is one level of lists, to any "
                                   "depth.", stretch=True)
def unflattens_three_levels(unflatten):
    expect(unflatten, [0, 1, 2, 3, 4, 5], (2, 1, 3), returns=[[[0, 1, 2]], [[3, 4, 5]]])
    expect(unflatten, list(range(8)), (2, 2, 2),
           returns=[[[0, 1], [2, 3]], [[4, 5], [6, 7]]])


@checkpoint.test("unflatten", hint="A shape with no rows, (0, 3), holds no numbers: [] gives "
                                   "[], with no block size to divide by.", stretch=True)
def a_shape_with_no_rows(unflatten):
    expect(unflatten, [], (0, 3), returns=[])


@checkpoint.test("unflatten", hint="A size of 0 inside the shape still has lists around it: "
                                   "(2, 0) is two empty rows, [[], []], and (1, 3, 0) is "
                                   "[[[], [], []]]. The shape, not the numbers, says how many "
                                   "lists to make.",
                 stretch=True)
def rows_with_no_numbers(unflatten):
    expect(unflatten, [], (2, 0), returns=[[], []])
    expect(unflatten, [], (1, 3, 0), returns=[[[], [], []]])


@checkpoint.test("unflatten", hint="A 1-D shape is one list of numbers, not a list of lists.",
                 stretch=True)
def unflattens_a_vector(unflatten):
    expect(unflatten, [1, 2, 3], (3,), returns=[1, 2, 3])


@checkpoint.test("unflatten", hint="The empty shape () is a scalar: the number itself, "
                                   "no list.", stretch=True)
def scalar_shape_gives_the_number(unflatten):
    expect(unflatten, [7], (), returns=7)


@checkpoint.test("unflatten", hint="A length that is not the product of the sizes cannot fill "
                                   "the shape (5 or 7 numbers for (2, 3)): raise ValueError "
                                   "naming the length and the shape.", stretch=True)
def rejects_a_length_that_does_not_fit(unflatten):
    # numbers that are not the length: a message that prints flat does not name it
    expect(unflatten, [10, 20, 30, 40, 60], (2, 3), raises=ValueError, naming=(5, (2, 3)))
    expect(unflatten, [10, 20, 30, 40, 60, 80, 90], (2, 3), raises=ValueError,
           naming=(7, (2, 3)))
    expect(unflatten, [8, 9], (), raises=ValueError, naming=(2, ()))
    # lengths that a size divides: only the product of all the sizes fits
    expect(unflatten, [10, 20, 30, 40, 50, 60], (3,), raises=ValueError, naming=(6, (3,)))
    expect(unflatten, list(range(100, 112)), (2, 3), raises=ValueError, naming=(12, (2, 3)))


@checkpoint.test("unflatten", hint="Leave flat as it was (no pop) and build new lists: the "
                                   "caller's list must not change, now or later when the result "
                                   "does.", stretch=True, hint_for=("returns a 1-D input itself",))
def shares_nothing_with_the_input(unflatten):
    expect(unflatten, [1, 2, 3], (3,), returns=[1, 2, 3], unchanged=True)
    expect(unflatten, [1, 2, 3, 4], (2, 2), returns=[[1, 2], [3, 4]], unchanged=True)


def _fillings(rng: random.Random) -> Call:
    """A shape of rank 0 to 4, sizes 0 to 4, and as many numbers (of every kind) as it
    holds."""
    shape = tuple(_some_shape(rng, 4))
    return Call(([_number(rng) for _ in range(math.prod(shape))], shape))


def _misfits(rng: random.Random) -> Call:
    """A shape, and a list of another length: one short or over, a multiple of one size,
    or any numbers for a shape that holds none (a size 0)."""
    shape = tuple(_some_shape(rng, 4))
    n = math.prod(shape)
    lengths = sorted(k for k in {n - 1, n + 1, 2 * n, n + (shape[0] if shape else 2),
                                 rng.randint(0, 9)} if k >= 0 and k != n)
    return Call(([_number(rng) for _ in range(rng.choice(lengths))], shape))


checkpoint.contract("unflatten", valid=_seeded(_fillings), stretch=True, invalid=[
    Invalid(_seeded(_misfits), ValueError, "lists whose length is not the number of elements",
            naming=lambda flat, shape: (len(flat), shape))])
