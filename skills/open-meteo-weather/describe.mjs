// Turns Open-Meteo's column-wise answer into one record per day, and WMO
// weather codes into words. Deterministic: the same answer gives the same
// description, so a receipt proves what the forecast said.

// WMO 4677 present-weather codes as Open-Meteo uses them.
const WMO = {
  0: "clear sky", 1: "mainly clear", 2: "partly cloudy", 3: "overcast",
  45: "fog", 48: "depositing rime fog",
  51: "light drizzle", 53: "moderate drizzle", 55: "dense drizzle",
  56: "light freezing drizzle", 57: "dense freezing drizzle",
  61: "slight rain", 63: "moderate rain", 65: "heavy rain",
  66: "light freezing rain", 67: "heavy freezing rain",
  71: "slight snow", 73: "moderate snow", 75: "heavy snow", 77: "snow grains",
  80: "slight rain showers", 81: "moderate rain showers", 82: "violent rain showers",
  85: "slight snow showers", 86: "heavy snow showers",
  95: "thunderstorm", 96: "thunderstorm with slight hail", 99: "thunderstorm with heavy hail",
};

function words(code) {
  // An unknown code is said as unknown, never guessed at.
  return Object.prototype.hasOwnProperty.call(WMO, code) ? WMO[code] : "unknown (WMO code " + code + ")";
}

export default function (input) {
  const f = input.forecast;
  const c = f.current || {};
  const cu = f.current_units || {};
  const d = f.daily || {};
  const du = f.daily_units || {};
  const time = d.time || [];
  for (const key of ["weather_code", "temperature_2m_max", "temperature_2m_min", "precipitation_sum"]) {
    if (!Array.isArray(d[key]) || d[key].length !== time.length) {
      throw new Error("the forecast's daily." + key + " does not have one value per day");
    }
  }
  const days = time.map((date, i) => ({
    date,
    conditions: words(d.weather_code[i]),
    temperature_max: d.temperature_2m_max[i],
    temperature_min: d.temperature_2m_min[i],
    precipitation: d.precipitation_sum[i],
  }));
  return {
    timezone: f.timezone,
    current: {
      time: c.time,
      conditions: words(c.weather_code),
      temperature: c.temperature_2m,
      humidity: c.relative_humidity_2m,
      wind_speed: c.wind_speed_10m,
      units: { temperature: cu.temperature_2m, humidity: cu.relative_humidity_2m, wind_speed: cu.wind_speed_10m, precipitation: du.precipitation_sum },
    },
    days,
  };
}
