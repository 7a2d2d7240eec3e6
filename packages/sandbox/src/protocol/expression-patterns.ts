/**
 * Where a prop value holds `{{ ... }}` expressions: the server finds them at save time (to check
 * their syntax and the steps they name) and the worker's evaluator finds them at run time, with
 * these same two patterns.
 */

/** A prop string that is one whole expression: its value is the expression's (any JSON type). */
export const WHOLE_EXPRESSION = /^\{\{([\s\S]*?)\}\}$/;

/** Every expression inside a prop string (global: read it with `matchAll` or `replace`). */
export const ANY_EXPRESSION = /\{\{([\s\S]*?)\}\}/g;
