/**
 * Orders the description asks listings to keep.
 */

export const sortedDesc = (xs: string[]) => xs.every((x, i) => i === 0 || (xs[i - 1] as string) >= x);
export const sortedAsc = (xs: string[]) => xs.every((x, i) => i === 0 || (xs[i - 1] as string) <= x);
