"""Benchmark runner: datasets x methods x seeds -> results.json, report.md and plots."""

from .runner import ResultStore, run_benchmark

__all__ = ["run_benchmark", "ResultStore"]
