// A problem found in a job: what the validator reports and what the designer's Problems panel lists.
export interface Problem {
  /** Stable machine-readable code, e.g. "cycle" or "unknown-operator". */
  readonly code: string;
  /** One sentence for people; names the operators and edges involved. */
  readonly message: string;
  /** JSON path of the offending value, e.g. "$.edges[2].to". */
  readonly path: string;
  /** Ids of the operators and edges involved, in the order the message names them. */
  readonly ids: readonly string[];
  /** 1-based position in the file, for malformed JSON. */
  readonly line?: number;
  readonly column?: number;
  /**
   * 1-based position inside an operator's code (the string at `path`, `$.operators[i].params.code`),
   * for a problem in that code: a syntax error, or something the sandbox refuses.
   */
  readonly codeLine?: number;
  readonly codeColumn?: number;
}
