"""Running units of games: the executor (``execute``: cells cut into units, played in-process,
with a results store, on local Dask workers or on a scheduler), the results store (``store``),
the Dask backends (``cluster``) and what ties them together (``runwork``). The studies and the
report play every game through here (docs/scaling.md)."""
