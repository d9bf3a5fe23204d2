"""stridegrad.viz is a lazy index: every listed name resolves, unknown names fail."""

import pytest

from stridegrad import viz


@pytest.mark.parametrize("name", viz.__all__)
def test_every_listed_name_resolves(name):
    assert callable(getattr(viz, name))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        viz.nope
