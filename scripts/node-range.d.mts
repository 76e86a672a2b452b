/** The project's `engines.node` range. */
export declare const NODE_RANGE: string;
/** The one-line refusal for Node `version` against `range`, or undefined when it is covered. */
export declare function nodeProblem(version: string, range?: string): string | undefined;
