"""Checkpoint 00 (welcome): the warm-up exercises, ``flatten``, ``shape_of``,
``dtype_of`` and ``to_bytes``."""

from __future__ import annotations

import array
import inspect
import struct
import types
from typing import Any

from stridegrad.course.checks import (ANY, CheckFailure, Checkpoint, expect, raised, short_repr,
                                     type_note)

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
def leaves_the_input_alone(flatten):
    # only the inputs: a wrong result is the other tests' business
    expect(flatten, [[1, 2], [3, 4]], returns=ANY, unchanged=True)
    expect(flatten, [[[5, 6]], [[7, 8]]], returns=ANY, unchanged=True)


@checkpoint.test("flatten", hint="Return a new list, even when the input is already flat, and "
                                 "leave the caller's list as it was: it must not change now (no "
                                 "pop), nor later when the result does.",
                 hint_for=("returns a flat input itself",))
def returns_a_new_list(flatten):
    expect(flatten, [5, 6], returns=[5, 6], unchanged=True)


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


def _elsewhere(fmt: str, machine: str) -> str:
    """A struct format as another machine reads it. With no byte order first ('<', '>',
    '!'), struct uses the machine's own byte order ('=': with standard sizes; nothing
    or '@': with the machine's own sizes too): on 64-bit Windows a C
    long ('l', 'L') is 4 bytes, not 8; on a big-endian machine (IBM Z) the most
    significant byte comes first."""
    if fmt[:1] in "<>!":
        return fmt  # standard sizes and an explicit order: the same everywhere
    if fmt[:1] == "=":  # standard sizes, but the machine's own order
        return (">" if machine == "big" else "<") + fmt[1:]
    body = fmt.lstrip("@")
    if machine == "windows":
        return "<" + body.replace("l", "i").replace("L", "I")
    return ">" + body


_PACK, _CALCSIZE, _STRUCT, _ARRAY = struct.pack, struct.calcsize, struct.Struct, array.array


def _struct_on(machine: str) -> Any:
    """The struct module as a learner's code would find it on ``machine``."""
    return types.SimpleNamespace(
        error=struct.error,
        pack=lambda fmt, *values: _PACK(_elsewhere(fmt, machine), *values),
        calcsize=lambda fmt: _CALCSIZE(_elsewhere(fmt, machine)),
        Struct=lambda fmt: _STRUCT(_elsewhere(fmt, machine)))


def _array_on(machine: str) -> Any:
    """The array module as ``machine`` has it, as far as ``array(code, numbers)
    .tobytes()`` goes: the machine's own sizes and byte order, as struct's native ones."""
    class Array:
        def __init__(self, code, numbers=()):
            self.code, self.numbers = code, list(numbers)

        def tobytes(self):
            return _PACK(_elsewhere(self.code * len(self.numbers), machine), *self.numbers)

    return types.SimpleNamespace(array=Array)


@checkpoint.test("to_bytes", hint="With '<' first, struct writes the same bytes on every "
                                  "machine: 'q' is 8 bytes, least significant first. Without it "
                                  "struct uses the machine's own sizes and order: a native 'l' "
                                  "is 4 bytes on Windows, and an IBM Z puts the most "
                                  "significant byte first.")
def the_same_bytes_on_every_machine(to_bytes):
    # run the learner's to_bytes with struct and array as another machine has them: the
    # modules' own functions (however the module was imported), and the notebook's
    # names for them (`from struct import pack`), are swapped for one call
    scope = getattr(inspect.unwrap(to_bytes), "__globals__", {})  # check() wraps it
    for machine, where in (("windows", "on 64-bit Windows"), ("big", "on a big-endian IBM Z")):
        fake, fake_array = _struct_on(machine), _array_on(machine)
        modules = [(struct, "pack", _PACK, fake.pack), (struct, "calcsize", _CALCSIZE,
                    fake.calcsize), (struct, "Struct", _STRUCT, fake.Struct),
                   (array, "array", _ARRAY, fake_array.array)]
        swaps = {name: new for _, _, real, new in modules for name, value in scope.items()
                 if value is real}
        saved = {name: scope[name] for name in swaps}
        name = getattr(to_bytes, "__name__", "to_bytes")
        call = f"{name}([1, -2], 'int64') with the struct and array modules as {where}"
        want = _PACK("<2q", 1, -2)
        try:
            scope.update(swaps)
            for module, attr, _, new in modules:
                setattr(module, attr, new)
            try:
                got = to_bytes([1, -2], "int64")
            except NotImplementedError:
                raise  # not written yet: the row says so, as every other test's does
            except Exception as exc:  # noqa: BLE001 - the learner's code may fail in any way
                raise CheckFailure(call, short_repr(want), raised(exc), kind="error") from exc
        finally:
            for module, attr, real, _ in modules:
                setattr(module, attr, real)
            scope.update(saved)
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
