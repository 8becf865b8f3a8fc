/** Version reported by the OpenAPI document and `/health/`. */
export const serverVersion = '0.1.0';
