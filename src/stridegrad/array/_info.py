"""``__array_namespace_info__``: what this namespace supports (Array API inspection)."""

from __future__ import annotations

from ._dtypes import INTEGER_DTYPES, DType, bool_, float32, float64, int64, isdtype

__all__ = ["__array_namespace_info__", "Info"]

_ALL = (bool_, *INTEGER_DTYPES, float32, float64)


class Info:
    """Capabilities, devices and dtypes of ``stridegrad.array`` (one device: ``"python"``)."""

    def capabilities(self) -> dict:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self) -> str:
        return "python"

    def devices(self) -> list[str]:
        return ["python"]

    def _check(self, device) -> None:
        from ._core import check_device

        check_device(device)

    def default_dtypes(self, *, device=None) -> dict[str, DType]:
        self._check(device)
        return {"real floating": float64, "integral": int64, "indexing": int64}

    def dtypes(self, *, device=None, kind=None) -> dict[str, DType]:
        """Supported dtypes by name, those of ``kind`` (a kind name or a tuple) if given."""
        self._check(device)
        if kind is None:
            return {d.name: d for d in _ALL}
        return {d.name: d for d in _ALL if isdtype(d, kind)}

    def __repr__(self) -> str:
        return "stridegrad.array.__array_namespace_info__()"


def __array_namespace_info__() -> Info:
    """The namespace's inspection object (``capabilities()``, ``devices()``, ``dtypes()``)."""
    return Info()
