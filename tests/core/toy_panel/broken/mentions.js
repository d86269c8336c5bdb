// names window.stationPanels and highcard, registers nothing
"use strict";
console.log("highcard", window.stationPanels);
