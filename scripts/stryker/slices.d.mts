/** A slice of the scheduled Stryker run: what it mutates and which tests it runs. */
export interface StrykerSlice {
  readonly mutate: readonly string[];
  readonly tests: string[];
  readonly services?: string;
}
export declare const SLICES: Record<string, StrykerSlice | undefined>;
export declare function sliceOfDay(now?: number): string;
