/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine's wake-up rule for the exclusive lock ("hand-off by count"), model-checked.
 * Run it with model/check; docs/handoff-model.md says what it proves and what it leaves out.
 *
 * THE RULE (lib/recipe/contender_fsm.cpp, on(watch_fired); the count: deletion_log.hpp and
 * handoff_count.cpp in lib/recipe).
 * Each session keeps, per lock path, a deletion count: the distinct sequence numbers of the
 * nodes whose deletion the session has PROOF of, recorded in the order the session receives
 * them (on the C client's thread, before the event or reply is handed on). The proofs: a
 * NodeDeleted watch event (a watch of any waiter of that session), and a delete by the
 * session that succeeded (its holder's release, its waiter's give-up). Never a no_node reply.
 * A waiter that handles a listing (its getChildren's reply) with nodes ahead of its own keeps
 *   before = the count of deletions below its own number (the snapshot, taken then), and
 *   lcount = the nodes ahead in that listing: the blocker (the nearest, which it watches with
 *            getData) and lcount - 1 others (the engine's others_ahead).
 * When the blocker's deletion is delivered, and no session event came since the listing:
 *   - lcount == 1, or now - before == lcount (now = the count below its number at that
 *     moment): granted, WITHOUT ANY READ;
 *   - otherwise it re-lists (getChildren) and decides on the new listing.
 * After any session event (connection lost and regained) it re-lists, as it always did.
 * There is no existence check of the nodes ahead.
 *
 * WHY EACH CASE IS SAFE (what the checks below confirm for every interleaving).
 *   Monotone queue. A sequence number comes from the parent's child counter, which only grows
 *   while our node exists. So every node created after ours sorts BEHIND us; the nodes ahead
 *   of us can only leave, never appear, and a deleted node never comes back.
 *   1. The snapshot. A node ahead of ours that the listing lacks was deleted before the server
 *      read the children. Every proof of that deletion (the watch events it fired, the reply
 *      to our session's own delete) was sent before the listing's reply, and the session
 *      receives in the order the server sends: it was recorded before the listing's reply was
 *      handed on, so it is in `before` (a snapshot taken later only holds more). A node
 *      created after ours sorts behind it and is never below our number; the same deletion
 *      told twice is one number. So now - before counts deletions of nodes OF THAT LISTING
 *      only: at most lcount, and lcount exactly when all of them are gone.
 *   2. All gone (now - before == lcount), or the blocker was the only one (lcount == 1): no
 *      node ahead exists, and by the monotone queue none can appear: we are first, for good.
 *      Granted without a read.
 *   3. Fewer: some may still exist, or they are gone without a proof to our session (a watch
 *      of another session, another session's expiry): re-list. A proof missed (a watch
 *      dropped, a delete's reply lost) only costs a listing; it never makes the count say
 *      "all gone" wrongly.
 *   4. Reconnect. A request in flight may or may not have reached the server (its watch may or
 *      may not be armed) and its reply is lost: re-list (so a watch fired while WATCHING is
 *      always from the current listing: "no session event since" holds by construction).
 *      The count is the session's and stays valid (same session). The new blocker is the old
 *      one if it still exists (every node nearer than it is gone), so a surviving watch is
 *      the same (session, path) registration and not a second one.
 *   5. A no_node reply is not a proof: the node was deleted by someone else at an unknown
 *      time, possibly BEFORE a listing another waiter of the session already handled, which
 *      then lacks it. Counted when the reply arrives (after that listing), it would count as
 *      one of the listing's nodes: that waiter would be granted while a node ahead exists.
 *   6. Give-up, release, session expiry: deletions, covered by 1-3 (an expiry deletes every
 *      node of the session at once and fires their watches; the expired session's count
 *      goes with it).
 *   7. A node deleted by someone else (an administrator, ADMIN_DELETES): its waiter is not
 *      told. If it re-lists, its node is not listed: its acquire fails (lock_lost). If its
 *      wake-up decides without a read, the acquire completes on a node that is gone and its
 *      first read as holder (the watch on its own node) reports lock_lost: it never holds a
 *      node that exists, and the model counts it as ended, not as a holder.
 *   8. Foreign contenders (Curator's or kazoo's rule: re-list on every wake-up, watch the
 *      predecessor) take numbers from the same counter and sort the same way; they obey the
 *      same monotone queue, so they are just nodes ahead or behind.
 *   At most one watch: a waiter arms a watch only through the getData on the blocker of its
 *   listing, and only after the previous watch fired (it was the node deleted) or when no
 *   watch was armed (the getData found the blocker gone, or after a re-list, case 4).
 *
 * WHAT THE MODEL IS. NOWN contenders following the rule above and NFOREIGN following
 * Curator's (re-list on every wake-up, getData-watch the predecessor), all on one lock path
 * with one attempt each; with SHARED_SESSION own contenders 0 and 1 share a session (they share
 * the count, reconnect and expire together), every other contender has its own. The count only
 * grants with others ahead when a session has several waiters: model/check runs 4
 * configurations, 3 of them with a shared session (see there). Modelling choices, each losing
 * no behaviour that matters to the rule:
 *   - Every node is created first, in any order (init): a node created later sorts behind all
 *     existing ones and no contender ahead of it can see it. Orders that differ only by
 *     swapping interchangeable contenders (own ones on their own sessions, or 0 and 1 on
 *     theirs; foreign ones) are checked once.
 *   - A request is answered at some later step, and its reply handled there, after whatever
 *     the contender received before it (FIFO, as ZooKeeper delivers replies and watch events
 *     to one session); a deletion after the server read it reaches the waiter only through
 *     the watch that read armed, which fires after the reply.
 *   - The session's count (seen[s]: a bit per sequence number; the count below n is the number
 *     of bits below n) records a watch event when the server sends it (delete_node): that is
 *     its place among the session's replies, which are received when served. The contender
 *     handles the event later, in its own order, and reads `now` then (later events may be in
 *     it, as in the engine, which reads it when the event is fed). A release or give-up is
 *     applied and its reply received in one step, and recorded there. The snapshot is taken
 *     when the listing's reply is handled, i.e. at its serve: the earliest the engine takes it.
 *     A later snapshot can only hold more (of the listing's deletions) and grants no more
 *     often: now - before <= lcount holds for the earliest one (asserted), so a larger
 *     `before` leaves now - before below lcount.
 *   - The environment (process Env) injects up to FAULTS give-ups (a waiter deletes its node)
 *     or session expiries (the server deletes all the session's nodes at once and fires
 *     their watches), up to RECONNECTS connection losses of an own session (a request in
 *     flight reached the server or not, its reply is lost, then the session event), and up to
 *     ADMIN_DELETES deletions of an own waiter's node by someone else (case 7; a give-up of
 *     that waiter afterwards deletes nothing: no_node). Holders release.
 *   - What can no longer matter is dropped, so that states differing only in it are one: the
 *     queued events of a contender that stopped waiting, its number once done, and the bits of
 *     seen[s] below no waiting contender of session s (no count reads them again).
 *   Not modelled: lost create replies (the engine's protected-prefix recovery), the 2^31
 *   sequence overflow and unorderable names (the engine re-lists there), a holder's checks,
 *   and the deletion log's bookkeeping (it keeps a path's deletions only while a waiter of the
 *   session counts on it, and folds those below every counting listing into a number): it
 *   only leaves out proofs that are already counted or never counted at all, which can only
 *   cost a listing (case 3).
 *
 * PROPERTIES.
 *   safety: assert at every grant that nobody else holds (never two exclusive holders), that
 *     the grantee has no watch left armed, and (right rule) that no node ahead of its own
 *     exists; at every wake-up (right rule) that now - before <= lcount (the count holds only
 *     the listing's nodes); at every watch registration that the waiter has no other armed
 *     watch (at most one watch per waiter); no deadlock (pan's end states).
 *   liveness (ltl granted, with weak fairness): an own waiter whose blockers are all gone
 *     (no node ahead of its own exists) is eventually granted, or its attempt ends (a
 *     give-up, an expiry, or its node deleted by someone else: lock_lost).
 *
 * WRONG RULES (spin -DWRONG_RULE=n), each must give a counterexample:
 *   1: grant whenever the watched node is deleted, without the count (a node ahead of the
 *      watched one may still hold): two holders.
 *   2: trust the stale view after a reconnect (keep waiting as if the getData(watch) that was
 *      in flight had armed its watch): a waiter whose blockers are gone waits forever.
 *   3: the snapshot taken when the listing is SENT, not when its reply is handled: a deletion
 *      proved between the send and the reply, of a node the listing will not show, counts as
 *      one of the listing's: two holders.
 *   4: a no_node reply counted (a give-up whose node someone else deleted records it, case 5):
 *      two holders.
 * WITNESS (spin -DWITNESS): asserts that no waiter is granted through the count with others
 *   ahead; spin must refute it, which shows the count path is exercised.
 */

#ifndef NOWN
#define NOWN 3          /* contenders 0..NOWN-1 follow the rule */
#endif
#ifndef NFOREIGN
#define NFOREIGN 1      /* contenders NOWN.. follow Curator's rule */
#endif
#define NC (NOWN + NFOREIGN)   /* at most 4: sequence numbers 0..3 fit pop() */
#ifndef RECONNECTS
#define RECONNECTS 1    /* connection losses the environment may inject */
#endif
#ifndef FAULTS
#define FAULTS 2        /* give-ups and session expiries the environment may inject */
#endif
#ifndef ADMIN_DELETES
#define ADMIN_DELETES 0 /* deletions of an own waiter's node by someone else (an administrator) */
#endif
#define NONE 255
#define bit(s) (1 << (s))
#define ahead(s) (bit(s) - 1)   /* the sequence numbers that sort before s */
#define pop(v) (((v) & 1) + (((v) >> 1) & 1) + (((v) >> 2) & 1) + (((v) >> 3) & 1))

/* contender states */
#define LISTING  1  /* getChildren outstanding */
#define ARMING   2  /* getData(watch) on the blocker watched[i] outstanding */
#define WATCHING 3  /* a watch armed on watched[i], waiting for its deletion */
#define HELD     4
#define DONE     5

#define waiting(c) (st[c] == LISTING || st[c] == ARMING || st[c] == WATCHING)

/* requests */
#define R_NONE  0
#define R_LIST  1   /* getChildren */
#define R_GET   2   /* getData(watch) on watched[c] */

mtype = { LIST_REPLY, GET_REPLY, NOTIFY, SESSION };

byte alive;            /* bit s: node with sequence s exists */
byte holders;          /* contenders holding the lock on a node that exists */
byte reconnects_left = RECONNECTS;
byte faults_left = FAULTS;
byte admin_left = ADMIN_DELETES;

byte st[NC];
byte myseq[NC];
byte watched[NC];      /* the blocker its getData(watch) went to (NONE: none) */
byte watchmask[NC];    /* server side: nodes on which contender c has a watch armed */
byte req[NC];
byte sess_of[NC];
byte gen[NC];          /* own: session events handled; a reply of an older round is ignored */
byte reqgen[NC];       /* the round the outstanding request was sent in */
byte seen[NOWN];       /* per own session: the deletions it has proof of (it only grows,
                          but for the bits no waiter of the session counts any more) */
byte before[NOWN];     /* own: deletions below its node seen when its listing was handled */
byte lcount[NOWN];     /* own: nodes ahead in that listing (the blocker and the others) */
chan ch[NC] = [4] of { mtype, byte, byte };

/* own contender c's session's count: distinct deletions below its node it has proof of */
#define count(c) pop(seen[sess_of[c]] & ahead(myseq[c]))
/* the nodes that matter to session s's count: those ahead of one of its waiters (the others
   are dropped, so that states differing only in them are one) */
#define ahead_if(c, s) ((c < NOWN && sess_of[c] == s && waiting(c)) -> ahead(myseq[c]) : 0)
#define counted(s) (ahead_if(0, s) | ahead_if(1, s) | ahead_if(2, s))
/* the session of own contender c records a proof of node s's deletion */
#define proof(c, s) seen[sess_of[c]] = (seen[sess_of[c]] | bit(s)) & counted(sess_of[c])
/* own contender c stopped waiting: drop what no waiter of its session counts any more */
#define settle(c) if :: c < NOWN -> seen[sess_of[c]] = seen[sess_of[c]] & counted(sess_of[c]); \
                                    before[c] = 0; lcount[c] = 0; gen[c] = 0 \
                     :: else -> skip fi

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

/* server: delete node s, fire every watch on it (queued to each watcher). The watcher's
   session receives the event here, in its order with the replies (a reply is received when
   its request is served), so an own session records the proof here; the contender handles
   the event later, in its own order. */
inline delete_node(s) {
  printf("MSC: delete node %d\n", s);
  alive = alive & ~bit(s);
  j = 0;
  do
  :: j < NC ->
     if
     :: (watchmask[j] & bit(s)) ->
        watchmask[j] = watchmask[j] & ~bit(s);
        if :: j < NOWN -> proof(j, s) :: else -> skip fi;
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
   (m, x, g), 0 loses it. A listing returns the nodes ahead and the lister's own. */
inline serve(c, reply) {
  printf("MSC: server serves %d's request %d, reply %d\n", c, req[c], reply);
  if
  :: req[c] == R_LIST ->
     if
     :: reply -> m = LIST_REPLY; x = alive & (ahead(myseq[c]) | bit(myseq[c])); g = reqgen[c]
     :: else -> skip
     fi
  :: req[c] == R_GET ->
     arm_watch(c, watched[c]);
     if :: reply -> m = GET_REPLY; x = ((alive & bit(watched[c])) != 0); g = reqgen[c] :: else -> skip fi
  fi;
  req[c] = R_NONE;
  reqgen[c] = 0
}

/* contender c stops waiting (st[c] is HELD or DONE): what it still had queued (events it
   would ignore; nothing new comes, it has no watch) and what no one needs any more go */
inline stop_waiting(c) {
  do
  :: nempty(ch[c]) -> ch[c]?_,_,_
  :: empty(ch[c]) -> break
  od;
  req[c] = R_NONE; reqgen[c] = 0; watchmask[c] = 0; watched[c] = NONE;
  if :: st[c] == DONE -> myseq[c] = 0 :: else -> skip fi;
  settle(c)
}

inline forget_count(c) {
  if :: c < NOWN -> before[c] = 0; lcount[c] = 0 :: else -> skip fi
}

/* the acquire completes with a grant. A waiter whose node someone else deleted can be
   granted too (it decides without a read); its own-node read after the grant finds the node
   gone and reports lock_lost: it never held anything */
inline grant(c) {
  assert(watchmask[c] == 0);         /* no watch left armed by the waiter */
  if
  :: (alive & bit(myseq[c])) ->
     printf("MSC: %d granted (node %d)\n", c, myseq[c]);
     assert(holders == 0);           /* never two exclusive holders */
#if !WRONG_RULE
     assert((alive & ahead(myseq[c])) == 0);  /* first: no node ahead of its own exists */
#endif
     holders++;
     st[c] = HELD
  :: else ->
     printf("MSC: %d granted on node %d, which is gone: lock_lost\n", c, myseq[c]);
     st[c] = DONE
  fi;
  stop_waiting(c)
}

inline relist(c) {
  st[c] = LISTING; req[c] = R_LIST; reqgen[c] = gen[c]; watched[c] = NONE;
#if WRONG_RULE == 3
  if :: c < NOWN -> before[c] = count(c) :: else -> skip fi  /* WRONG: the snapshot at the send */
#else
  forget_count(c)
#endif
}

/* blocker b: getData(watch) on it */
inline arm(c, b) {
  st[c] = ARMING; req[c] = R_GET; reqgen[c] = gen[c]; watched[c] = b
}

/* own contender: release (the delete succeeds: the session has proof of it) */
proctype Own(byte i) {
  mtype m;
  byte x, g, j, k, now;
  /* no end label: a contender blocked for good before DONE is a deadlock pan reports */
  do
  :: st[i] == DONE -> break
  :: d_step {
       st[i] == HELD ->
       printf("MSC: %d releases\n", i);
       delete_node(myseq[i]); proof(i, myseq[i]); holders--; st[i] = DONE; myseq[i] = 0
     }
  :: d_step {
       st[i] != DONE && (len(ch[i]) > 0 || req[i] != R_NONE) ->
       if  /* FIFO: what the contender received before the request was served comes first */
       :: len(ch[i]) > 0 -> ch[i]?m,x,g
       :: else -> serve(i, 1)
       fi;
       printf("MSC: %d receives %e %d in state %d\n", i, m, x, st[i]);
       if
       :: m == NOTIFY && st[i] == WATCHING && x == watched[i] ->
          now = count(i);
#if !WRONG_RULE
          assert(now >= before[i] && now - before[i] <= lcount[i]);  /* only the listing's */
#endif
          if
#if WRONG_RULE == 1
          :: true ->  /* WRONG: the blocker's deletion decides, without the count */
#else
          :: lcount[i] == 1 || now - before[i] == lcount[i] ->
#endif
             if
             :: lcount[i] > 1 && now - before[i] == lcount[i] ->
                printf("MSC: %d granted by the count: %d of the %d ahead seen deleted\n", i, now - before[i], lcount[i]);
#ifdef WITNESS
                assert(lcount[i] == 1)  /* WITNESS: spin must refute it (a grant by the count) */
#else
                skip
#endif
             :: else -> skip
             fi;
             grant(i)
          :: else -> relist(i)
          fi
       :: m == NOTIFY && !(st[i] == WATCHING && x == watched[i]) -> skip  /* counted already */
       :: (m == LIST_REPLY || m == GET_REPLY) && g != gen[i] -> skip  /* an older round */
       :: m == LIST_REPLY && g == gen[i] ->
#if !WRONG_RULE
          assert(st[i] == LISTING);
#endif
          if
          :: !(x & bit(myseq[i])) ->
             /* not listed: someone else deleted our node; the acquire fails (lock_lost) */
             printf("MSC: %d not listed: lock_lost\n", i);
             st[i] = DONE; stop_waiting(i)
          :: else ->
             x = x & ahead(myseq[i]);
             if
             :: x == 0 -> grant(i)
             :: else ->
#if WRONG_RULE != 3
                before[i] = count(i);  /* the snapshot, with everything received before */
#endif
                lcount[i] = pop(x);
                nearest(x, g);
                arm(i, g)
             fi
          fi
       :: m == GET_REPLY && g == gen[i] ->
#if !WRONG_RULE
          assert(st[i] == ARMING);
#endif
          if
          :: x -> st[i] = WATCHING
          :: else -> relist(i)  /* vanished between the listing and the getData */
          fi
       :: m == SESSION ->
#if WRONG_RULE == 2
          if
          :: st[i] == ARMING -> st[i] = WATCHING  /* WRONG: trust the listing and the watch */
          :: st[i] == LISTING -> req[i] = R_LIST; reqgen[i] = gen[i]
          :: else -> skip
          fi
#else
          if
          :: st[i] == LISTING || st[i] == ARMING || st[i] == WATCHING ->
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
       m = 0; x = 0; g = 0; now = 0
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
  :: d_step {
       st[i] == HELD ->
       printf("MSC: %d releases\n", i);
       delete_node(myseq[i]); holders--; st[i] = DONE; myseq[i] = 0
     }
  :: d_step {
       st[i] != DONE && (len(ch[i]) > 0 || req[i] != R_NONE) ->
       if  /* FIFO: what the session received before the request was served comes first */
       :: len(ch[i]) > 0 -> ch[i]?m,x,g
       :: else -> serve(i, 1)
       fi;
       printf("MSC: %d receives %e %d in state %d\n", i, m, x, st[i]);
       if
       :: m == LIST_REPLY ->
          x = x & ahead(myseq[i]);
          if
          :: x == 0 -> grant(i)
          :: else -> nearest(x, g); arm(i, g)
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

/* end contender c's attempt from outside: its own delete (by_self: a give-up) or its
   session's expiry (the server deletes its nodes; the session is gone with its count) */
inline end_attempt(c, by_self) {
  printf("MSC: %d's attempt ends (%d: give-up, else expiry)\n", c, by_self);
  if
  :: (waiting(c) || st[c] == HELD) && (alive & bit(myseq[c])) ->
     delete_node(myseq[c]);
     if :: by_self && c < NOWN -> proof(c, myseq[c]) :: else -> skip fi;  /* it succeeded */
     if :: st[c] == HELD -> holders-- :: else -> skip fi
  :: waiting(c) && !(alive & bit(myseq[c])) ->
     /* someone else deleted the node: the give-up's delete returns no_node, which proves a
        deletion at an unknown time: not counted */
#if WRONG_RULE == 4
     if :: by_self -> proof(c, myseq[c]) :: else -> skip fi  /* WRONG: counted */
#endif
     skip
  :: else -> skip
  fi;
  st[c] = DONE;
  stop_waiting(c)
}

#define live(c) (waiting(c) || st[c] == HELD)
#define on_session(c, s) (c < NC && sess_of[c] == s)

/* a waiter gives up (timeout, cancellation): it deletes its node */
#define GIVE_UP(c) \
  :: atomic { faults_left > 0 && waiting(c) -> faults_left--; end_attempt(c, 1) }

/* someone else (an administrator) deletes own waiter c's node; c is not told */
#define ADMIN_DELETE(c) \
  :: atomic { \
       admin_left > 0 && waiting(c) && (alive & bit(myseq[c])) -> \
       admin_left--; printf("MSC: someone else deletes %d's node\n", c); delete_node(myseq[c]) \
     }

/* session s expires: the server deletes all its nodes at once (a holder's too) */
#define EXPIRE(s) \
  :: atomic { \
       faults_left > 0 && ((on_session(0, s) && live(0)) || (on_session(1, s) && live(1)) || \
                           (on_session(2, s) && live(2)) || (on_session(3, s) && live(3))) -> \
       faults_left--; \
       c = 0; \
       do \
       :: c < NC -> if :: sess_of[c] == s && live(c) -> end_attempt(c, 0) :: else -> skip fi; c++ \
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
#if ADMIN_DELETES > 0
  ADMIN_DELETE(0)
#if NOWN > 1
  ADMIN_DELETE(1)
#endif
#if NOWN > 2
  ADMIN_DELETE(2)
#endif
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
    assert(NC <= 4 && NOWN >= 1);
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
    /* Contenders alike (same rule, each its own session) are interchangeable: keep only
       the orders in which they are numbered by position (own 0 and 1 also when they share
       a session; foreign ones among themselves); the other orders end here, with nothing
       run. */
    if
#ifdef SHARED_SESSION
    :: (NOWN < 2 || myseq[0] < myseq[1]) &&
#else
    :: (NOWN < 2 || myseq[0] < myseq[1]) && (NOWN < 3 || myseq[1] < myseq[2]) &&
#endif
       (NFOREIGN < 2 || myseq[NOWN] < myseq[NOWN + 1]) ->
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
