import type { Size } from './geometry.js';

function ellipsePath(size: Size): string {
  const radiusX = size.width / 2;
  const radiusY = size.height / 2;
  return `M0 ${radiusY}A${radiusX} ${radiusY} 0 1 0 ${size.width} ${radiusY}A${radiusX} ${radiusY} 0 1 0 0 ${radiusY}Z`;
}

/** An SVG whose opaque ellipse, inscribed in `size`, keeps pixels when blended with `dest-in`. */
export function ellipseMask(size: Size): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}"><path fill="#fff" d="${ellipsePath(size)}"/></svg>`,
  );
}

/** An SVG painting `colour` everywhere outside the ellipse inscribed in `size`, anti-aliased. */
export function ellipseSurround(size: Size, colour: string): Buffer {
  const frame = `M0 0H${size.width}V${size.height}H0Z`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}"><path fill="${colour}" fill-rule="evenodd" d="${frame}${ellipsePath(size)}"/></svg>`,
  );
}
