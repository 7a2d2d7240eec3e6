// Shared by the curated actions: JSON given as text or as a value, read the same way.
export function parseJson(value, propName) {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new Error(`${propName} is not valid JSON: ${error.message}`, { cause: error });
  }
}
