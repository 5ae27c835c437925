/*
 * The engine's wake-up rule for the exclusive lock ("hand-off without a listing"), model-checked.
 * Run it with model/check; docs/handoff-model.md says what it proves and what it leaves out.
 *
 * THE RULE. A waiter keeps the ordered nodes ahead of it from its last listing (its "view"),
 * minus every deletion its session has seen (any watch of that session on the lock path).
 * When the node it watches is deleted:
 *   - nothing left ahead -> decide without any read (exclusive lock: held);
 *   - otherwise check the nodes still ahead in one pipelined round trip (a watching getData on
 *     the nearest, a plain exists on the others), watch the nearest that exists, or decide if
 *     none does.
 * After any session event (connection lost and regained) it re-lists, as it does today.
 *
 * WHY EACH CASE IS SAFE (what the checks below confirm for every interleaving).
 *   Monotone queue. A sequence number comes from the parent's child counter, which only grows
 *   while our node exists. So every node created after ours sorts BEHIND us; the nodes ahead
 *   of us can only leave, never appear, and a deleted node never comes back. Hence "node X is
 *   gone" is a fact that stays true, and any set of nodes ahead that we have seen to be gone is
 *   gone for good.
 *   1. The listing. It contains every node ahead that existed when the server read it; the
 *      ones missing from it were deleted before, i.e. forever. The view = (listing) minus
 *      (deletions seen) therefore always CONTAINS every node ahead that still exists.
 *   2. A deletion seen through any watch of the session (ours or another contender's on the
 *      same path): removing it from the view keeps (1) true.
 *   3. Watched node deleted, view now empty: by (1) no node ahead exists, and by the monotone
 *      queue none can appear: we are first, for good. Grant without a read.
 *   4. Watched node deleted, view not empty: some of those nodes may still exist (a node ahead
 *      of the one we watched gave up or expired long ago, or still holds). The check reads
 *      them. "Missing" is final (monotone), so it is removed; "exists" may be stale by the time
 *      the reply arrives, but a later deletion is reported through the watch on the nearest
 *      (FIFO: a watch registered by a read fires after that read's reply). If none exists,
 *      case 3 applies. If the nearest still exists, its getData armed our one watch.
 *      If the nearest is missing but others exist, no watch was armed (getData sets none on a
 *      missing node, unlike exists), and we check again with the smaller view.
 *   5. Reconnect. A request in flight may or may not have reached the server (its watch may or
 *      may not be armed) and its reply is lost. The view stays a superset of what exists (1, 2),
 *      but whether we are watching anything is unknown: re-list. The new nearest is the node we
 *      watched if it still exists (every node nearer than it was already seen gone), so a
 *      surviving watch is the same (session, path) registration and not a second one.
 *   6. Give-up, release, session expiry: all are deletions (an expiry deletes every node of the
 *      session at once and fires their watches) and are covered by 2-4.
 *   7. Foreign contenders (Curator's or kazoo's rule: re-list on every wake-up, watch the
 *      predecessor) take numbers from the same counter and sort the same way; they obey the
 *      same monotone queue, so they are just nodes ahead or behind.
 *   At most one watch: a waiter arms a watch only through the getData on the nearest node of
 *   its view, and only after the previous watch fired (it was the node deleted) or when no
 *   watch was armed (check found the nearest missing, or after a re-list, case 5).
 *
 * WHAT THE MODEL IS. NOWN contenders following the rule above and NFOREIGN following
 * Curator's (re-list on every wake-up, getData-watch the predecessor), all on one lock path
 * with one attempt each; with SHARED_SESSION own contenders 0 and 1 share a session (they share
 * deletion knowledge, reconnect and expire together), every other contender has its own.
 * model/check runs 3 configurations (3 own with a shared session; 2 own + 1 foreign; 3 own +
 * 1 foreign). Modelling choices, each losing no behaviour that matters to the rule:
 *   - Every node is created first, in any order (init): a node created later sorts behind all
 *     existing ones and no contender ahead of it can see it. Orders that differ only by
 *     swapping interchangeable own contenders are checked once.
 *   - A request is answered at some later step, and its reply handled there, after whatever
 *     the session received before it (FIFO, as ZooKeeper delivers replies and watch events
 *     to one session); a deletion after the server read it reaches the waiter only through
 *     the watch that read armed, which fires after the reply.
 *   - The environment (process Env) injects up to FAULTS give-ups (a waiter deletes its node)
 *     or session expiries (the server deletes all the session's nodes at once and fires
 *     their watches), and up to RECONNECTS connection losses of an own session: a request in
 *     flight reached the server or not, its reply is lost, then the session event. Holders
 *     release.
 *   Not modelled: lost create replies (the engine's protected-prefix recovery), the 2^31
 *   sequence overflow and unorderable names (the engine re-lists there), a holder's checks.
 *
 * PROPERTIES.
 *   safety: assert at every grant that nobody else holds (never two exclusive holders), that
 *     the grantee has no watch left armed, and at every watch registration that the waiter has
 *     no other armed watch (at most one watch per waiter); no deadlock (pan's end states).
 *   liveness (ltl granted, with weak fairness): an own waiter whose blockers are all gone
 *     (no node ahead of its own exists) is eventually granted (or its own attempt ends by an
 *     injected give-up or expiry).
 *
 * WRONG RULES (spin -DWRONG_RULE=n), each must give a counterexample:
 *   1: decide when the watched node is deleted, without checking the nodes still ahead
 *      (a node ahead of the watched one may still hold): two holders.
 *   2: trust the stale view after a reconnect (keep waiting as if the in-flight watching read
 *      had reached the server): a waiter whose blockers are gone waits forever.
 */

#ifndef NOWN
#define NOWN 3          /* contenders 0..NOWN-1 follow the rule */
#endif
#ifndef NFOREIGN
#define NFOREIGN 1      /* contenders NOWN.. follow Curator's rule */
#endif
#define NC (NOWN + NFOREIGN)
#ifndef RECONNECTS
#define RECONNECTS 1    /* connection losses the environment may inject */
#endif
#ifndef FAULTS
#define FAULTS 2        /* give-ups and session expiries the environment may inject */
#endif
#define NONE 255
#define bit(s) (1 << (s))
#define ahead(s) (bit(s) - 1)   /* the sequence numbers that sort before s */

/* contender states */
#define LISTING  1  /* getChildren outstanding */
#define CHECKING 2  /* own: check of the nodes ahead outstanding; foreign: getData(watch) */
#define WATCHING 3  /* a watch armed on watched[i], waiting for its deletion */
#define HELD     4
#define DONE     5

/* requests */
#define R_NONE  0
#define R_LIST  1
#define R_CHECK 2   /* own: getData(watch) on watched[c], exists on the rest of view[c] */
#define R_GET   3   /* foreign: getData(watch) on watched[c] */

mtype = { LIST_REPLY, CHECK_REPLY, GET_REPLY, NOTIFY, SESSION };

byte alive;            /* bit s: node with sequence s exists */
byte holders;
byte reconnects_left = RECONNECTS;
byte faults_left = FAULTS;

byte st[NC];
byte myseq[NC];
byte view[NC];         /* own: nodes ahead from the last listing, minus deletions seen */
byte watched[NC];      /* the node its watching getData went to (NONE: none) */
byte watchmask[NC];    /* server side: nodes on which contender c has a watch armed */
byte req[NC];
byte sess_of[NC];
byte seen[NC];         /* per session: deletions seen by its watches (only grows) */
byte gen[NC];          /* own: session events handled; a reply of an older round is ignored */
byte reqgen[NC];       /* the round the outstanding request was sent in */
chan ch[NC] = [4] of { mtype, byte, byte };

/* the nearest node ahead in v: the highest sequence number in it */
inline nearest(v, out) {
  out = NONE;
  k = 0;
  do
  :: k < NC -> if :: (v & bit(k)) -> out = k :: else -> skip fi; k++
  :: else -> break
  od;
  k = 0
}

/* server: delete node s, fire every watch on it (queued to each watcher's session) */
inline delete_node(s) {
  printf("MSC: delete node %d\n", s);
  alive = alive & ~bit(s);
  j = 0;
  do
  :: j < NC ->
     if
     :: (watchmask[j] & bit(s)) ->
        watchmask[j] = watchmask[j] & ~bit(s);
        assert(nfull(ch[j])); ch[j]!NOTIFY,s,0
     :: else -> skip
     fi;
     j++
  :: else -> break
  od;
  j = 0
}

/* server: getData with a watch on node n: it arms one only if the node exists */
inline arm_watch(c, n) {
  if
  :: n != NONE && (alive & bit(n)) ->
     assert((watchmask[c] & ~bit(n)) == 0);  /* at most one watch per waiter */
     watchmask[c] = watchmask[c] | bit(n)
  :: else -> skip
  fi
}

/* server: apply contender c's outstanding request; reply = 1 hands the reply to the caller
   (m, x, g), 0 loses it */
inline serve(c, reply) {
  printf("MSC: server serves %d's request %d, reply %d\n", c, req[c], reply);
  if
  :: req[c] == R_LIST ->
     if :: reply -> m = LIST_REPLY; x = alive & ahead(myseq[c]); g = reqgen[c] :: else -> skip fi
  :: req[c] == R_CHECK ->
     arm_watch(c, watched[c]);
     if :: reply -> m = CHECK_REPLY; x = view[c] & alive; g = reqgen[c] :: else -> skip fi
  :: req[c] == R_GET ->
     arm_watch(c, watched[c]);
     if :: reply -> m = GET_REPLY; x = ((alive & bit(watched[c])) != 0); g = reqgen[c] :: else -> skip fi
  fi;
  req[c] = R_NONE;
  reqgen[c] = 0
}

inline grant(c) {
  printf("MSC: %d granted (node %d)\n", c, myseq[c]);
  assert(holders == 0);              /* never two exclusive holders */
  assert(alive & bit(myseq[c]));     /* the holder's node exists */
  assert(watchmask[c] == 0);         /* no watch left armed by the waiter */
  holders++;
  st[c] = HELD;
  watched[c] = NONE
}

inline check(c) {
  st[c] = CHECKING;
  req[c] = R_CHECK;
  reqgen[c] = gen[c];
  nearest(view[c], watched[c])
}

/* own waiter: decide on the view, or check what is still ahead */
inline decide_or_check(c) {
  if
  :: view[c] == 0 -> grant(c)
  :: else -> check(c)
  fi
}

inline relist(c) {
  st[c] = LISTING; req[c] = R_LIST; reqgen[c] = gen[c]; watched[c] = NONE
}

proctype Own(byte i) {
  mtype m;
  byte x, g, j, k;
  /* no end label: a contender blocked for good before DONE is a deadlock pan reports */
  do
  :: st[i] == DONE -> break
  :: d_step { st[i] == HELD -> delete_node(myseq[i]); holders--; st[i] = DONE }  /* release */
  :: d_step {
       st[i] != DONE && (len(ch[i]) > 0 || req[i] != R_NONE) ->
       if  /* FIFO: what the session received before the request was served comes first */
       :: len(ch[i]) > 0 -> ch[i]?m,x,g
       :: else -> serve(i, 1)
       fi;
       printf("MSC: %d receives %e %d in state %d\n", i, m, x, st[i]);
       if
       :: m == NOTIFY ->
          seen[sess_of[i]] = seen[sess_of[i]] | bit(x);
          view[i] = view[i] & ~seen[sess_of[i]];
          if
          :: st[i] == WATCHING && x == watched[i] ->
#if WRONG_RULE == 1
             view[i] = 0;  /* WRONG: the wake-up decides; the nodes still ahead are not checked */
#endif
             decide_or_check(i)
          :: else -> skip  /* knowledge only */
          fi
       :: (m == LIST_REPLY || m == CHECK_REPLY) && g != gen[i] -> skip  /* an older round */
       :: m == LIST_REPLY && g == gen[i] ->
#if !WRONG_RULE
          assert(st[i] == LISTING);
#endif
          view[i] = x & ~seen[sess_of[i]];
          decide_or_check(i)
       :: m == CHECK_REPLY && g == gen[i] ->  /* x: the checked nodes that existed when read */
#if !WRONG_RULE
          assert(st[i] == CHECKING);
#endif
          view[i] = view[i] & x & ~seen[sess_of[i]];
          if
          :: view[i] == 0 -> grant(i)
          :: else ->
             /* the getData armed a watch iff watched[i] existed; if it is still the nearest
                we know of, we wait on it, else no watch is armed: check again */
             nearest(view[i], g);
             if
             :: g == watched[i] && (x & bit(g)) -> st[i] = WATCHING
             :: else -> check(i)
             fi
          fi
       :: m == SESSION ->
#if WRONG_RULE == 2
          if
          :: st[i] == CHECKING -> st[i] = WATCHING  /* WRONG: trust the view and the watch */
          :: st[i] == LISTING -> req[i] = R_LIST; reqgen[i] = gen[i]
          :: else -> skip
          fi
#else
          if
          :: st[i] == LISTING || st[i] == CHECKING || st[i] == WATCHING ->
             /* a request sent since the loss went out on the new connection: the server
                applies it (it may arm a watch); its reply belongs to an older round */
             if
             :: req[i] != R_NONE -> serve(i, 0)
             :: else -> skip
             fi;
             gen[i]++;
             relist(i)
          :: else -> skip  /* a holder verifies its own node: not modelled */
          fi
#endif
       :: else -> skip
       fi;
       m = 0; x = 0; g = 0
     }
  od
}

/* Curator's InterProcessMutex (kazoo's Lock alike): list on every wake-up, watch the
   predecessor with getData. */
proctype Foreign(byte i) {
  mtype m;
  byte x, g, j, k;
  do
  :: st[i] == DONE -> break
  :: d_step { st[i] == HELD -> delete_node(myseq[i]); holders--; st[i] = DONE }
  :: d_step {
       st[i] != DONE && (len(ch[i]) > 0 || req[i] != R_NONE) ->
       if  /* FIFO: what the session received before the request was served comes first */
       :: len(ch[i]) > 0 -> ch[i]?m,x,g
       :: else -> serve(i, 1)
       fi;
       printf("MSC: %d receives %e %d in state %d\n", i, m, x, st[i]);
       if
       :: m == LIST_REPLY ->
          if
          :: x == 0 -> grant(i)
          :: else -> st[i] = CHECKING; req[i] = R_GET; nearest(x, watched[i])
          fi
       :: m == GET_REPLY ->
          if
          :: x -> st[i] = WATCHING
          :: else -> relist(i)
          fi
       :: m == NOTIFY && st[i] == WATCHING && x == watched[i] -> relist(i)
       :: else -> skip
       fi;
       m = 0; x = 0; g = 0
     }
  od
}

#define waiting(c) (st[c] == LISTING || st[c] == CHECKING || st[c] == WATCHING)

/* end contender c's attempt from outside (give-up, or its session expired) */
inline end_attempt(c) {
  printf("MSC: %d's attempt ends (give-up or expiry)\n", c);
  if
  :: waiting(c) || st[c] == HELD ->
     delete_node(myseq[c]);
     if :: st[c] == HELD -> holders-- :: else -> skip fi
  :: else -> skip
  fi;
  st[c] = DONE; req[c] = R_NONE; watchmask[c] = 0; watched[c] = NONE
}

#define live(c) (waiting(c) || st[c] == HELD)
#define on_session(c, s) (c < NC && sess_of[c] == s)

/* a waiter gives up (timeout, cancellation): it deletes its node */
#define GIVE_UP(c) \
  :: atomic { faults_left > 0 && waiting(c) -> faults_left--; end_attempt(c) }

/* session s expires: the server deletes all its nodes at once (a holder's too) */
#define EXPIRE(s) \
  :: atomic { \
       faults_left > 0 && ((on_session(0, s) && live(0)) || (on_session(1, s) && live(1)) || \
                           (on_session(2, s) && live(2)) || (on_session(3, s) && live(3))) -> \
       faults_left--; \
       c = 0; \
       do \
       :: c < NC -> if :: sess_of[c] == s && live(c) -> end_attempt(c) :: else -> skip fi; c++ \
       :: else -> break \
       od; \
       c = 0 \
     }

/* own session s loses its connection and regains it: each of its waiters' request in flight
   reached the server or not (its reply is lost), then the session event */
#define RECONNECT(s) \
  :: atomic { \
       reconnects_left > 0 && ((on_session(0, s) && waiting(0)) || \
                               (NOWN > 1 && on_session(1, s) && waiting(1)) || \
                               (NOWN > 2 && on_session(2, s) && waiting(2))) -> \
       reconnects_left--; \
       printf("MSC: reconnect\n"); \
       c = 0; \
       do \
       :: c < NOWN -> \
          if \
          :: sess_of[c] == s && waiting(c) -> \
             if \
             :: req[c] != R_NONE -> if :: serve(c, 0) :: req[c] = R_NONE; reqgen[c] = 0 fi \
             :: else -> skip \
             fi; \
             assert(nfull(ch[c])); ch[c]!SESSION,0,0 \
          :: else -> skip \
          fi; \
          c++ \
       :: else -> break \
       od; \
       c = 0 \
     }

proctype Env() {
  mtype m;  /* unused: serve(c, 0) names them */
  byte c, j, k, x, g;
end:
  do
  GIVE_UP(0)
  GIVE_UP(1)
  GIVE_UP(2)
#if NC > 3
  GIVE_UP(3)
#endif
  EXPIRE(0)
  EXPIRE(1)
  EXPIRE(2)
#if NC > 3
  EXPIRE(3)
#endif
  RECONNECT(0)
#if NOWN > 1
  RECONNECT(1)
#endif
#if NOWN > 2
  RECONNECT(2)
#endif
  :: break
  od
}

/* Every node is created before anything else happens, in any order. This loses nothing: a
   node created later sorts behind every existing one, so no contender ahead of it can see it
   (a listing returns only the nodes ahead of the lister). Then each contender's getChildren
   (pipelined with its create) is outstanding. */
init {
  atomic {
    byte c, s, k, used;
    c = 0;
    do
    :: c < NC ->
       k = 0;  /* take the k-th number not yet taken, k chosen freely */
       do
       :: k < NC - 1 - c -> k++
       :: break
       od;
       s = 0;
       do
       :: (used & bit(s)) -> s++
       :: else -> if :: k == 0 -> break :: else -> k--; s++ fi
       od;
       used = used | bit(s);
       myseq[c] = s;
       sess_of[c] = c;
       watched[c] = NONE;
       st[c] = LISTING; req[c] = R_LIST;
       c++
    :: else -> break
    od;
#ifdef SHARED_SESSION
    sess_of[1] = 0;  /* own contenders 0 and 1 share a session */
#endif
    alive = used;
    /* Own contenders alike (same rule, each its own session) are interchangeable: keep
       only the orders in which they are numbered by position (0 and 1 when they share a
       session); the other orders end here, with nothing run. */
    if
#ifdef SHARED_SESSION
    :: NOWN < 2 || myseq[0] < myseq[1] ->
#else
    :: (NOWN < 2 || myseq[0] < myseq[1]) && (NOWN < 3 || myseq[1] < myseq[2]) ->
#endif
       c = 0;
       do
       :: c < NOWN -> run Own(c); c++
       :: else -> break
       od;
       do
       :: c < NC -> run Foreign(c); c++
       :: else -> break
       od;
       run Env()
    :: else -> c = 0;
       do
       :: c < NC -> st[c] = DONE; c++
       :: else -> break
       od
    fi
  }
}

#define unblocked(c) (waiting(c) && (alive & ahead(myseq[c])) == 0)
#define finished(c) (st[c] == HELD || st[c] == DONE)

ltl granted {
  [] (unblocked(0) -> <> finished(0))
#if NOWN > 1
  && [] (unblocked(1) -> <> finished(1))
#endif
#if NOWN > 2
  && [] (unblocked(2) -> <> finished(2))
#endif
}
