"""The production workflow: a Frozen Plan + Patch LangGraph engine whose artifacts become items."""

from sea.production.engine import ProductionEngine, RunSummary
from sea.production.ports import ProductionPorts

__all__ = ["ProductionEngine", "ProductionPorts", "RunSummary"]
