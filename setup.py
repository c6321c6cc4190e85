"""The one thing pyproject.toml cannot declare in a stable form: the optional C extension.

``ctxbudget.tokens._neighbours`` computes the neighbour counts, the pair floors, the
word counts and the periodic runs of the token features (``src/ctxbudget/tokens/
neighbours.py``, ``words.py`` and ``repeats.py``), each in one pass. It is optional: where no C compiler is present the
build goes on without it, and the counts are computed by the pure-Python definitions in
those modules instead, the same counts about nine times slower.
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
