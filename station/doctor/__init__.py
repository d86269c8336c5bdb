"""`station doctor`: every check a table needs before its first shoe, each with a plain
verdict, what it saw and what to do (docs/operator.md, "Bringing up a new table").

One check per module: `shoe`, `camera`, `disk`, `clock`, `journal`, `settlement`, `ports`;
`checks.run_all` runs them in the order an engineer fixes things, `report` prints them."""
