// Turns the National Weather Service's point and forecast answers into one
// record per forecast period, in the service's own words. Deterministic: the
// same answers give the same description, so a receipt proves what the
// forecast said.

function place(p) {
  const loc = ((p.relativeLocation || {}).properties) || {};
  return loc.city && loc.state ? loc.city + ", " + loc.state : "";
}

export default function (input) {
  const p = input.point.properties;
  const periods = input.forecast.properties.periods;
  if (!Array.isArray(periods) || periods.length === 0) {
    throw new Error("the forecast has no periods");
  }
  return {
    office: p.gridId,
    place: place(p),
    timezone: p.timeZone,
    periods: periods.map((x) => ({
      name: x.name,
      start: x.startTime,
      end: x.endTime,
      daytime: x.isDaytime,
      temperature: x.temperature,
      temperature_unit: x.temperatureUnit,
      precipitation_chance: (x.probabilityOfPrecipitation || {}).value ?? null,
      wind: (x.windSpeed + " " + (x.windDirection || "")).trim(),
      conditions: x.shortForecast,
      detail: x.detailedForecast,
    })),
  };
}
