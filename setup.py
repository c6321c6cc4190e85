"""The one thing pyproject.toml cannot declare in a stable form: the optional C extension.

``ctxbudget.tokens._neighbours`` computes the neighbour counts, the class counts, the
pair floors and forced boundaries, the word counts and the periodic runs of the token
features (``src/ctxbudget/tokens/neighbours.py``, ``boundaries.py``, ``words.py`` and
``repeats.py``), each in one pass, and the weighted sums of the calibrated counts
(``calibrated.py``). It is optional: where no C compiler is present the build goes on
without it, and the counts are computed by the pure-Python definitions in those modules
instead, the same counts about 30 times slower.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "ctxbudget.tokens._neighbours",
            sources=["src/ctxbudget/tokens/_neighbours.c"],
            optional=True,
        )
    ]
)
