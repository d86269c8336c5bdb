"use strict";
(window.stationPanels = window.stationPanels || {})["highcard"] = { render() {} };
