"""boardsim: the project's namespace for its command line, ``boardsim.cli`` (the `boardsim`
command). The layers below it keep their own top-level packages (simcore, policies, arena,
experiments, benchmarks: docs/engine_api.md)."""
