# SPDX-License-Identifier: Apache-2.0
# Bash completion of zkcoord: its commands, each command's options and the values some take.
# Installed to share/bash-completion/completions/zkcoord (bash-completion loads it on demand);
# or `source` it by hand.

_zkcoord() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD - 1]}

  local commands="lock locks elect leader semaphore register members counter barrier watch server try-it help"
  local global="--connect --session-timeout --connect-timeout --auth --auth-file -v --verbose -h --help"

  # The command word (the first word that is neither an option nor an option's value) and
  # how many operands (PATH, ID, COMMAND...) come after it before the word completed.
  local command="" operands=0 i word
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    case $word in
      --connect | --session-timeout | --connect-timeout | --auth | --auth-file | --acl | \
        --timeout | --grace | --id | --leases | --describe | --data | --service-json | \
        --port | --html | --lease | --pause | --mode | --scale | --bytes | --members | --depth)
        ((i++))
        ;;
      --) ;;
      -*) ;;
      *)
        if [[ -z $command ]]; then command=$word; else ((operands++)); fi
        ;;
    esac
  done
  # Past PATH (and ID): the words are COMMAND's, completed as bash completes a command line.
  local before_command=1
  [[ $command == register ]] && before_command=2
  case $command in
    lock | elect | semaphore | register | barrier)
      if ((operands > before_command)); then
        COMPREPLY=($(compgen -f -- "$cur"))
        return
      fi
      if ((operands == before_command)) && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -c -- "$cur"))
        return
      fi
      ;;
  esac

  # Values of the options that take one.
  case $prev in
    --acl)
      COMPREPLY=($(compgen -W "open creator-all world-read" -- "$cur"))
      return
      ;;
    --mode)
      COMPREPLY=($(compgen -W "lock fenced conditional" -- "$cur"))
      return
      ;;
    --bytes)
      COMPREPLY=($(compgen -W "4 8" -- "$cur"))
      return
      ;;
    --auth-file | --html)
      COMPREPLY=($(compgen -f -- "$cur"))
      return
      ;;
    --connect | --session-timeout | --connect-timeout | --auth | --timeout | --grace | \
      --id | --leases | --describe | --data | --service-json | --port | --lease | --pause | \
      --scale | --members | --depth)
      return
      ;;
  esac

  local options
  case $command in
    "")
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$global --version" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
      fi
      return
      ;;
    help)
      COMPREPLY=($(compgen -W "$commands" -- "$cur"))
      return
      ;;
    lock) options="--hold --read --write --timeout --grace --acl --describe" ;;
    locks) options="--watch --json" ;;
    elect) options="--id --hold --timeout --grace --acl" ;;
    leader | members) options="--watch --json" ;;
    semaphore) options="--leases --hold --timeout --grace --acl --describe" ;;
    register) options="--data --service-json --grace --acl" ;;
    counter)
      # After PATH: the operation.
      if ((operands == 1)) && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "get add set cas" -- "$cur"))
        return
      fi
      options="--bytes"
      ;;
    barrier) options="--members --timeout" ;;
    watch) options="--depth --json" ;;
    server)
      COMPREPLY=($(compgen -W "--until-eof -v --verbose -h --help" -- "$cur"))
      return
      ;;
    try-it)
      COMPREPLY=($(compgen -W "--connect --port --html --lease --pause --mode --scale -v --verbose -h --help" -- "$cur"))
      return
      ;;
    *) return ;;
  esac
  # PATH and ID are ZooKeeper's: nothing local to offer.
  [[ $cur == -* ]] && COMPREPLY=($(compgen -W "$options $global" -- "$cur"))
}

complete -F _zkcoord zkcoord
