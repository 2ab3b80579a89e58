import type { IdRange } from '@fate/core';

/** The bounds of an id range as query arguments ('' where a bound is absent). */
export interface RangeArgs {
  start: string;
  end: string;
}

/** One query per shape of range, so each seeks with exactly the bounds it has. */
export interface RangeShapes<S> {
  readonly all: S;
  readonly from: S;
  readonly to: S;
  readonly between: S;
}

/**
 * Makes the four shapes of a range query: `make(start, end)` adds `id >= start` and
 * `id < end` when told to. A bound passed as '' would compare, not vanish, so absent bounds
 * need queries of their own.
 */
export function rangeShapes<S>(make: (start: boolean, end: boolean) => S): RangeShapes<S> {
  return {
    all: make(false, false),
    from: make(true, false),
    to: make(false, true),
    between: make(true, true),
  };
}

/** The four shapes, each made into something else (e.g. prepared as a statement). */
export function mapShapes<S, T>(shapes: RangeShapes<S>, make: (shape: S) => T): RangeShapes<T> {
  return rangeShapes((start, end) =>
    make(start ? (end ? shapes.between : shapes.from) : end ? shapes.to : shapes.all),
  );
}

/** The query for `range`'s shape, and its bounds as arguments. */
export function forRange<S>(shapes: RangeShapes<S>, range: IdRange | undefined): [S, RangeArgs] {
  const start = range?.start;
  const end = range?.end;
  const shape =
    start === undefined
      ? end === undefined
        ? shapes.all
        : shapes.to
      : end === undefined
        ? shapes.from
        : shapes.between;
  return [shape, { start: start ?? '', end: end ?? '' }];
}
