"""Checkpoint 00 (welcome): the warm-up exercise, ``flatten``."""

from __future__ import annotations

from stridegrad.course.checks import Checkpoint, expect

__all__ = ["checkpoint"]

checkpoint = Checkpoint("00_welcome", "welcome")


@checkpoint.test("flatten", hint="Walk the rows in order and add each row's numbers to one list.")
def flattens_a_matrix(flatten):
    expect(flatten, [[1, 2, 3], [4, 5, 6]], returns=[1, 2, 3, 4, 5, 6])


@checkpoint.test("flatten", hint="A flat list is already flat: return its numbers, in order.")
def keeps_a_flat_list(flatten):
    expect(flatten, [7, 8, 9], returns=[7, 8, 9])


@checkpoint.test("flatten", hint="Lists can nest more than two deep: call flatten on each item "
                                 "(recursion) instead of assuming rows of numbers.")
def flattens_three_levels(flatten):
    expect(flatten, [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], returns=[1, 2, 3, 4, 5, 6, 7, 8])


@checkpoint.test("flatten", hint="A single number is a 0-dimensional array with one element: "
                                 "return it in a list of one.")
def wraps_a_single_number(flatten):
    expect(flatten, 42, returns=[42])


@checkpoint.test("flatten", hint="An empty list has no numbers: return an empty list.")
def empty_list(flatten):
    expect(flatten, [], returns=[])


@checkpoint.test("flatten", hint="Build a new list; do not change the input (no pop, no "
                                 "extend on the rows you were given).",
                 hint_for=("empties the input", "extends the caller's first row"))
def leaves_the_input_alone(flatten):
    expect(flatten, [[1, 2], [3, 4]], returns=[1, 2, 3, 4], unchanged=True)
    expect(flatten, [[[5], 6], [7]], returns=[5, 6, 7], unchanged=True)


@checkpoint.test("flatten", hint="Return a new list even when the input is already flat: the "
                                 "caller's list must not change when the result does.",
                 hint_for=("returns a flat input itself",))
def returns_a_new_list(flatten):
    expect(flatten, [5, 6], returns=[5, 6], unchanged=True)
