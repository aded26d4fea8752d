"""Build hook: the optional C move generator ``scoring._movegen``.

``optional=True``: without a C compiler the install still succeeds and the engine falls back
to the pure-Python generator (same results, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "scoring._movegen",
            sources=["scoring/_movegen.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
