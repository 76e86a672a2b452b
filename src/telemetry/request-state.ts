/**
 * What the core learns about an inbound request that its HTTP metrics need (the agent the router
 * chose, the NLWeb outcome), handed from the instrumented gateway to the HTTP middleware through
 * the request id every binding passes to the core (CallOptions.requestId).
 */
export interface RequestState {
  agent?: string;
  /** `success`, `promise`, `elicitation` or `failure`, when a core call answered. */
  outcome?: string;
}

/** The states of the requests in flight, by request id; entries live exactly as long as their request. */
export class RequestStates {
  private readonly byId = new Map<string, RequestState>();

  /** Registers a request; the returned state is filled in while it runs. */
  open(requestId: string): RequestState {
    const state: RequestState = {};
    this.byId.set(requestId, state);
    return state;
  }

  get(requestId: string | undefined): RequestState | undefined {
    return requestId === undefined ? undefined : this.byId.get(requestId);
  }

  close(requestId: string): void {
    this.byId.delete(requestId);
  }

  get size(): number {
    return this.byId.size;
  }
}
