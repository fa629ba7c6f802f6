/** One row of a transition table: the states an action applies to, and the state it leaves (none: it stays). */
export interface Transition<State extends string> {
  from: readonly State[];
  to?: State;
}

/**
 * A finite-state machine over one transition table (Vendure's FSM shape): each domain keeps its own table
 * and unit spec, and every status decision of that domain asks its machine instead of comparing literals.
 */
export class StateMachine<State extends string, Action extends string, Row extends Transition<State> = Transition<State>> {
  constructor(
    /** What the states belong to, for error texts ("order", "token"). */
    readonly subject: string,
    readonly transitions: Readonly<Record<Action, Row>>,
  ) {}

  /** Whether `action` applies to something in `state`. */
  allows(action: Action, state: State): boolean {
    return this.transitions[action].from.includes(state);
  }

  /** The state `action` leaves something in `state` in (its own state when the row sets none), or null when it does not apply. */
  next(action: Action, state: State): State | null {
    const transition = this.transitions[action];
    return transition.from.includes(state) ? (transition.to ?? state) : null;
  }

  /** The states `action` applies to, for the `status IN (…)` of a conditional UPDATE. */
  from(action: Action): State[] {
    return [...this.transitions[action].from];
  }

  /** The transition of `action` from `state`, or what `refuse` throws when it does not apply. */
  require(action: Action, state: State, refuse: (transition: Row) => Error): Row {
    const transition = this.transitions[action];
    if (!transition.from.includes(state)) throw refuse(transition);
    return transition;
  }
}
