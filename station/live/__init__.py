"""The station running live: one owner thread around the table core, fed by devices,
the bet API and the console, journaling every input before its effects leave the station."""
