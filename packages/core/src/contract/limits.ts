/** Deepest stack a transaction may have; pushing one more is `FATE_STACK_OVERFLOW`. */
export const MAX_STACK_DEPTH = 100;
