"""Oracle Gate: decides whether an agent-written change may be scored at all."""

__version__ = "0.1.0"
